/** Contracts of issue 18: dashboard. */
export {};
