/** Contracts of issue 18: site-tracking. */
export {};
