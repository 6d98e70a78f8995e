/** Contracts of issue 18: tracking. */
export {};
