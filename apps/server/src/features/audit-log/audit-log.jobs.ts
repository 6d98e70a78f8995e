import type { Services } from '../../services.ts';
import { pruneAuditLog } from './audit-log.queries.ts';

/**
 * The daily retention job ('prune-audit-log'): entries older than their account's `audit_log_retention_months` go,
 * through the owner-rights function of migration 0050, since herald_app may not delete audit entries.
 */
export async function runPruneAuditLog(services: Services): Promise<number> {
  return pruneAuditLog(services.db);
}
