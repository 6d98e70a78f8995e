import type { Task } from 'graphile-worker';
import type { Services } from '../services.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { JobName, JobPayloads } from '../jobs/job-types.ts';
import { runAccountDeletion } from '../features/accounts/account-admin.service.ts';
import { runAbTestDecide } from '../features/broadcasts/ab-tests.jobs.ts';
import { runStartBroadcast } from '../features/broadcasts/broadcasts.jobs.ts';
import { runBillingSweep } from '../features/billing/billing.jobs.ts';
import { runPruneAuditLog } from '../features/audit-log/audit-log.jobs.ts';
import { runPruneEvents } from '../features/privacy/privacy.jobs.ts';
import { runBulkAction } from '../features/bulk/bulk.service.ts';
import { runSendConfirmation } from '../features/confirmations/confirmation-email.ts';
import { runImport } from '../features/imports/imports.service.ts';
import { runPeopleSearchFill } from '../features/people/people-search.jobs.ts';
import {
  runPeopleSearchBlocks,
  runPeopleSearchBlocksSweep,
} from '../features/people/people-search-blocks.jobs.ts';
import { runDeliver } from '../features/deliveries/deliveries.jobs.ts';
import { runAdvanceFlow, runFlowScheduledTriggers, runFlowWebhooks } from '../features/flows/flows.jobs.ts';
import { runOutgoingWebhooks, runSlackSend } from '../features/integrations/integrations.jobs.ts';
import {
  runDirtyRefresh,
  runSegmentRefreshJob,
  runTimeRelativeRefresh,
} from '../features/segments/segments.jobs.ts';

/** `stopping` is aborted when the process begins to shut down: a job that loops stops taking new work and hands the rest back. */
type Handler<N extends JobName> = (
  payload: JobPayloads[N],
  services: Services & { mailer: Mailer },
  stopping: AbortSignal,
) => Promise<void>;

/** One handler per job type: a job type without a handler does not compile. */
export function buildTaskList(services: Services & { mailer: Mailer }): Record<JobName, Task> {
  const handlers: { [N in JobName]: Handler<N> } = {
    'send-email': (payload, s) => s.mailer.deliver(payload.idempotencyKey),
    'delete-account': (payload, s) => runAccountDeletion(s.events, s.db, payload.accountId),
    'bulk-action': (payload, s) => runBulkAction(s, payload.accountId, payload.bulkActionId),
    'import-people': (payload, s) => runImport(s, payload.accountId, payload.importId),
    'people-search-fill': (payload, s) => runPeopleSearchFill(s, payload.accountId, payload.since),
    'people-search-blocks': (payload, s) => runPeopleSearchBlocks(s, payload.accountId),
    'people-search-blocks-sweep': async (_payload, s) => void (await runPeopleSearchBlocksSweep(s)),
    'refresh-segments': (payload, s) => runDirtyRefresh(s, payload.accountId),
    'refresh-segment': (payload, s) => runSegmentRefreshJob(s, payload),
    'refresh-time-relative-segments': (_payload, s) => runTimeRelativeRefresh(s),
    'start-broadcast': (payload, s) => runStartBroadcast(s, payload.accountId, payload.broadcastId),
    'ab-test-decide': (payload, s) => runAbTestDecide(s, payload.accountId, payload.broadcastId),
    deliver: (payload, s, stopping) => runDeliver(s, payload, stopping),
    'advance-flow': (payload, s, stopping) => runAdvanceFlow(s, payload, stopping),
    'flow-webhook': (payload, s) => runFlowWebhooks(s, payload),
    'outgoing-webhooks': (payload, s) => runOutgoingWebhooks(s, payload.accountId),
    'slack-send': (payload, s) => runSlackSend(s, payload.accountId),
    'flow-scheduled-triggers': (_payload, s) => runFlowScheduledTriggers(s),
    'billing-sweep': async (_payload, s) => void (await runBillingSweep(s)),
    'prune-audit-log': async (_payload, s) => void (await runPruneAuditLog(s)),
    'prune-events': async (_payload, s) => void (await runPruneEvents(s)),
    'send-confirmation': (payload, s) => runSendConfirmation(s, payload),
  };
  const list = {} as Record<JobName, Task>;
  for (const name of Object.keys(handlers) as JobName[]) {
    const handler = handlers[name] as Handler<JobName>;
    list[name] = async (payload, helpers) =>
      handler(payload as JobPayloads[JobName], services, helpers.abortSignal);
  }
  return list;
}
