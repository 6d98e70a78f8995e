import { broadcastVariantContent } from '../features/broadcasts/ab-tests.service.ts';
import { archiveBroadcasts, listActiveBroadcastIds } from '../features/broadcasts/broadcasts.queries.ts';
import { registerContentSource, savedEmailContent } from '../features/deliveries/source-content.ts';
import { archiveEmails, listActiveEmailIds } from '../features/emails/emails.queries.ts';
import { archiveFlows, listActiveFlowIds } from '../features/flows/flows.queries.ts';
import { registerFolderItems } from '../features/folders/folder-items.ts';
import { transactionalContent } from '../features/transactional/transactional-content.ts';

/**
 * Where a lower feature asks something of higher ones, the higher ones answer through a registry the lower one
 * declares; this fills those registries in, once, before the app or the worker starts (docs/architecture.md).
 */
let connected = false;

export function connectFeatures(): void {
  if (connected) return;
  connected = true;
  // What a send of each kind of source says (deliveries/source-content.ts): a broadcast's A/B variant, a transactional send's own content.
  registerContentSource('broadcast', async (db, key) =>
    broadcastVariantContent(db, key, await savedEmailContent(db, key.accountId, key.emailId)),
  );
  registerContentSource('transactional', (db, key) => transactionalContent(db, key.accountId, key.sourceId));
  // The items filed in folders of each type (folders/folder-items.ts).
  registerFolderItems('emails', { activeIds: listActiveEmailIds, archive: archiveEmails });
  registerFolderItems('broadcasts', { activeIds: listActiveBroadcastIds, archive: archiveBroadcasts });
  registerFolderItems('flows', { activeIds: listActiveFlowIds, archive: archiveFlows });
}
