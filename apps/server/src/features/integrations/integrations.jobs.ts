import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import type { Services } from '../../services.ts';
import { sendSlackMessages } from './slack-outbox.ts';
import { sendDueDeliveries } from './webhook-delivery.ts';

/** `outgoing-webhooks`: post the account's due deliveries, then sleep until the next retry is due. */
export async function runOutgoingWebhooks(services: Services, accountId: number): Promise<void> {
  const next = await sendDueDeliveries(services, accountId);
  if (next) {
    await withAccount(services.db, accountId, (db) =>
      enqueueJob(
        db,
        'outgoing-webhooks',
        { accountId },
        { jobKey: `outgoing-webhooks:${accountId}`, runAt: next, soonest: true },
      ),
    );
  }
}

/** `slack-send`: post the account's due Slack messages, then sleep until the next retry is due. */
export async function runSlackSend(services: Services, accountId: number): Promise<void> {
  const next = await sendSlackMessages(services, accountId);
  if (next) {
    await withAccount(services.db, accountId, (db) =>
      enqueueJob(
        db,
        'slack-send',
        { accountId },
        { jobKey: `slack-send:${accountId}`, runAt: next, soonest: true },
      ),
    );
  }
}
