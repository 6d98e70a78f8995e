import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.ts';
import * as teamAndTenancy from './0002-team-and-tenancy.ts';
import * as audience from './0003-audience.ts';
import * as imports from './0004-imports.ts';
import * as indexableUnderRls from './0005-indexable-under-rls.ts';
import * as segments from './0006-segments.ts';
import * as eventNames from './0007-event-names.ts';
import * as importSpeed from './0008-import-speed.ts';
import * as importDedupeOnce from './0009-import-dedupe-once.ts';
import * as importMergedBatches from './0010-import-merged-batches.ts';
import * as importStagingTables from './0011-import-staging-tables.ts';
import * as emails from './0012-emails.ts';
import * as sending from './0013-sending.ts';
import * as deliveries from './0014-deliveries.ts';
import * as mailMessageIds from './0015-mail-message-ids.ts';
import * as sentEventsQuiet from './0016-sent-events-quiet.ts';
import * as abTests from './0017-ab-tests.ts';
import * as transactionalSends from './0018-transactional-sends.ts';
import * as sendTimes from './0019-send-times.ts';
import * as emailTracking from './0020-email-tracking.ts';
import * as emailMetrics from './0021-email-metrics.ts';
import * as siteTracking from './0022-site-tracking.ts';
import * as dashboard from './0023-dashboard.ts';
import * as quietHoursRelease from './0024-quiet-hours-release.ts';
import * as flows from './0025-flows.ts';
import * as flowRuns from './0026-flow-runs.ts';
import * as accountMetrics from './0027-account-metrics.ts';
import * as flowEntryPlan from './0028-flow-entry-plan.ts';
import * as billing from './0029-billing.ts';
import * as billingProviders from './0030-billing-providers.ts';
import * as aiWriter from './0031-ai-writer.ts';
import * as marketplaceCodes from './0032-marketplace-codes.ts';
import * as flowVersions from './0033-flow-versions.ts';
import * as flowGoals from './0034-flow-goals.ts';
import * as outgoingWebhooks from './0035-outgoing-webhooks.ts';
import * as peopleSearch from './0037-people-search.ts';
import * as rollupWithoutRowKeys from './0038-rollup-without-row-keys.ts';
import * as segmentMarksByChange from './0039-segment-marks-by-change.ts';
import * as eventsAccountCheck from './0040-events-account-check.ts';
import * as parentChecksPerStatement from './0041-parent-checks-per-statement.ts';
import * as personEmailCountsFromEvents from './0042-person-email-counts-from-events.ts';
import * as segmentMarksTakePlan from './0043-segment-marks-take-plan.ts';
import * as trackingRollupAtWrite from './0044-tracking-rollup-at-write.ts';
import * as sendProblems from './0045-send-problems.ts';
import * as eventForwards from './0046-event-forwards.ts';
import * as twoFactor from './0047-two-factor.ts';
import * as sessionHandles from './0048-session-handles.ts';
import * as singleSignOn from './0049-single-sign-on.ts';
import * as auditLog from './0050-audit-log.ts';
import * as trackingApi from './0051-tracking-api.ts';
import * as personErasure from './0052-person-erasure.ts';
import * as doubleOptIn from './0053-double-opt-in.ts';
import * as peopleSearchSample from './0054-people-search-sample.ts';
import * as membershipJobsYield from './0055-membership-jobs-yield.ts';
import * as tagMarksCheaper from './0056-tag-marks-cheaper.ts';
import * as eventMarksByReader from './0057-event-marks-by-reader.ts';
import * as peopleSearchShortTerms from './0058-people-search-short-terms.ts';
import * as consentRecordsAccountKey from './0059-consent-records-account-key.ts';
import * as enqueueWhileTaken from './0060-enqueue-while-taken.ts';
import * as peopleSearchBlocks from './0061-people-search-blocks.ts';
import * as segmentMarksTakeByAddress from './0062-segment-marks-take-by-address.ts';
import * as peopleSearchGrams from './0063-people-search-grams.ts';

/** Every migration, in order. Add new ones at the end; never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-team-and-tenancy': teamAndTenancy,
  '0003-audience': audience,
  '0004-imports': imports,
  '0005-indexable-under-rls': indexableUnderRls,
  '0006-segments': segments,
  '0007-event-names': eventNames,
  '0008-import-speed': importSpeed,
  '0009-import-dedupe-once': importDedupeOnce,
  '0010-import-merged-batches': importMergedBatches,
  '0011-import-staging-tables': importStagingTables,
  '0012-emails': emails,
  '0013-sending': sending,
  '0014-deliveries': deliveries,
  '0015-mail-message-ids': mailMessageIds,
  '0016-sent-events-quiet': sentEventsQuiet,
  '0017-ab-tests': abTests,
  '0018-transactional-sends': transactionalSends,
  '0019-send-times': sendTimes,
  '0020-email-tracking': emailTracking,
  '0021-email-metrics': emailMetrics,
  '0022-site-tracking': siteTracking,
  '0023-dashboard': dashboard,
  '0024-quiet-hours-release': quietHoursRelease,
  '0025-flows': flows,
  '0026-flow-runs': flowRuns,
  '0027-account-metrics': accountMetrics,
  '0028-flow-entry-plan': flowEntryPlan,
  '0029-billing': billing,
  '0030-billing-providers': billingProviders,
  '0031-ai-writer': aiWriter,
  '0032-marketplace-codes': marketplaceCodes,
  '0033-flow-versions': flowVersions,
  '0034-flow-goals': flowGoals,
  '0035-outgoing-webhooks': outgoingWebhooks,
  '0037-people-search': peopleSearch,
  '0038-rollup-without-row-keys': rollupWithoutRowKeys,
  '0039-segment-marks-by-change': segmentMarksByChange,
  '0040-events-account-check': eventsAccountCheck,
  '0041-parent-checks-per-statement': parentChecksPerStatement,
  '0042-person-email-counts-from-events': personEmailCountsFromEvents,
  '0043-segment-marks-take-plan': segmentMarksTakePlan,
  '0044-tracking-rollup-at-write': trackingRollupAtWrite,
  '0045-send-problems': sendProblems,
  '0046-event-forwards': eventForwards,
  '0047-two-factor': twoFactor,
  '0048-session-handles': sessionHandles,
  '0049-single-sign-on': singleSignOn,
  '0050-audit-log': auditLog,
  '0051-tracking-api': trackingApi,
  '0052-person-erasure': personErasure,
  '0053-double-opt-in': doubleOptIn,
  '0054-people-search-sample': peopleSearchSample,
  '0055-membership-jobs-yield': membershipJobsYield,
  '0056-tag-marks-cheaper': tagMarksCheaper,
  '0057-event-marks-by-reader': eventMarksByReader,
  '0058-people-search-short-terms': peopleSearchShortTerms,
  '0059-consent-records-account-key': consentRecordsAccountKey,
  '0060-enqueue-while-taken': enqueueWhileTaken,
  '0061-people-search-blocks': peopleSearchBlocks,
  '0062-segment-marks-take-by-address': segmentMarksTakeByAddress,
  '0063-people-search-grams': peopleSearchGrams,
};
