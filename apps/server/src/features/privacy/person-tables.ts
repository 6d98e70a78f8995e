import type { PersonExport } from '@herald/contracts';

/**
 * Every table that holds a person's data, and what export and erase do with it (docs/people.md, "Export and erase").
 * test/privacy-coverage.test.ts lists the database's tables with a person column (person_id, email, to_address) and
 * fails when one is in neither list below: a new table of person data must say here how it is exported and erased.
 */
export const personTables: Record<
  string,
  {
    export: keyof PersonExport | 'derived';
    erase: 'deleted' | 'anonymised' | 'ended, kept without personal data';
  }
> = {
  people: { export: 'person', erase: 'deleted' },
  events: { export: 'events', erase: 'deleted' },
  deliveries: { export: 'deliveries', erase: 'anonymised' },
  segment_members: { export: 'segments', erase: 'deleted' },
  flow_runs: { export: 'flowRuns', erase: 'ended, kept without personal data' },
  flow_conversions: { export: 'flowConversions', erase: 'ended, kept without personal data' },
  flow_webhook_calls: { export: 'flowWebhookCalls', erase: 'deleted' },
  webhook_events: { export: 'outgoingWebhookEvents', erase: 'deleted' },
  communication_preferences: { export: 'communicationPreferences', erase: 'deleted' },
  suppressions: { export: 'suppression', erase: 'deleted' },
  suppression_history: { export: 'suppressionHistory', erase: 'deleted' },
  transactional_sends: { export: 'transactionalSends', erase: 'deleted' },
  site_visitors: { export: 'siteVisitors', erase: 'deleted' },
  tracking_identities: { export: 'trackingIdentities', erase: 'deleted' },
  consent_records: { export: 'consentHistory', erase: 'deleted' },
  email_metric_firsts: { export: 'emailFirstEngagements', erase: 'deleted' },
  // Derived from the person or their events, shown by the export through what they derive from.
  people_search: { export: 'derived', erase: 'deleted' },
  segment_dirty_people: { export: 'derived', erase: 'deleted' },
  flow_trigger_fires: { export: 'derived', erase: 'deleted' },
  email_metric_queue: { export: 'derived', erase: 'anonymised' },
};

/** Tables with an address column that hold no person's data, and why. */
export const notPersonTables: Record<string, string> = {
  users: "team members' sign-in accounts",
  accounts: "the account's own contact address",
  sender_addresses: "the account's from addresses",
  mail_deliveries: "Herald's own mail to team members (invitations, resets, export links)",
  dev_mailbox: 'the development mailbox, off in production',
  erased_addresses: 'the one-way hashes of erased addresses, kept by design',
};
