/** What a delivery is sent for (features/deliveries): its source's kind. */
export type SourceKind = 'broadcast' | 'flow' | 'transactional' | 'test';

/** Every job type with its payload; the task list in app/tasks.ts must cover each one. */
export interface JobPayloads {
  'send-email': { idempotencyKey: string };
  'delete-account': { accountId: number };
  'bulk-action': { accountId: number; bulkActionId: number };
  'import-people': { accountId: number; importId: number };
  /** Search entries for the people an import wrote since `since` (an ISO time). */
  'people-search-fill': { accountId: number; since: string };
  /** Cut and summarise the account's blocks of search entries (features/people/people-search-blocks.jobs.ts). */
  'people-search-blocks': { accountId: number };
  /** Every ten minutes: queue people-search-blocks for the accounts with blocks to summarise. */
  'people-search-blocks-sweep': Record<string, unknown>;
  'refresh-segments': { accountId: number };
  'refresh-segment': { accountId: number; segmentId: number };
  'refresh-time-relative-segments': Record<string, unknown>;
  'start-broadcast': { accountId: number; broadcastId: number };
  'ab-test-decide': { accountId: number; broadcastId: number };
  deliver: { accountId: number; kind: SourceKind; sourceId: number };
  'advance-flow': { accountId: number; flowId: number };
  'flow-webhook': { accountId: number };
  /** Posts the account's outgoing-webhook deliveries (issue 20). */
  'outgoing-webhooks': { accountId: number };
  /** Posts the account's Slack messages (flow steps, alerts). */
  'slack-send': { accountId: number };
  'flow-scheduled-triggers': Record<string, unknown>;
  'billing-sweep': Record<string, unknown>;
  /** Daily: audit entries past their account's retention go (features/audit-log). */
  'prune-audit-log': Record<string, unknown>;
  /** Daily: events older than their account's event retention go, through the event store (features/privacy). */
  'prune-events': Record<string, unknown>;
  /** Double opt-in: one person's confirmation email (features/confirmations); `nonce` keys the send. */
  'send-confirmation': { accountId: number; personId: number; nonce: string };
}
export type JobName = keyof JobPayloads;

/** The key of a source's `deliver` job: one job per source, however often it is asked for. */
export const deliverJobKey = (accountId: number, kind: SourceKind, sourceId: number) =>
  `deliver:${accountId}:${kind}:${sourceId}`;
