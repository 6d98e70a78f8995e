/**
 * PostgreSQL going away (a restart, a failover, a network cut) must not stop the process: requests and jobs fail
 * and are retried, the pools reconnect once the server is back. One path cannot be caught by Herald's code: the job
 * queue (graphile-worker) records a job's failure or success without awaiting it, and when the database is
 * unreachable that promise rejects with nobody to handle it, which Node answers by exiting. `keepRunningOnConnectionLoss`
 * logs such a rejection instead when it is a lost database connection; any other unhandled rejection still ends the
 * process as before. (The job it was about stays taken by this worker; the sweepers of sends, flows and imports give
 * their work a fresh job.)
 */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
const connectionMessages = [
  /^Connection terminated/,
  /connection error and is not queryable/,
  /timeout exceeded when trying to connect/,
  /terminating connection due to administrator command/,
];

/** Whether `error` says the database connection was lost or could not be made. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionCodes.has(code) || code.startsWith('08'))) return true;
  return connectionMessages.some((pattern) => pattern.test(error.message));
}

/** Log unhandled rejections that are lost database connections instead of exiting; rethrow every other one. */
export function keepRunningOnConnectionLoss(
  log: (message: string, error: unknown) => void = (message, error) => console.error(message, error),
): void {
  process.on('unhandledRejection', (reason) => {
    if (isConnectionLoss(reason)) {
      log('[db] lost the database connection; going on (it is retried):', reason);
      return;
    }
    throw reason;
  });
}
