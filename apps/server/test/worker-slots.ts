/**
 * How many test files of the server's suite run at once. Each slot gets a database of its own (global-setup.ts), so
 * files running side by side never share a job queue. Two: most files wait on PostgreSQL, timers or child processes
 * more than they compute, so two keep a 2-core machine busy.
 */
export const workerSlots = 2;
