/** Issue 21: see the file's owner in docs/decisions.md. */
export {};
