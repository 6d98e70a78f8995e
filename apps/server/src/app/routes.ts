import { accountsRoutes } from '../features/accounts/accounts.routes.ts';
import { authRoutes } from '../features/auth/auth.routes.ts';
import { twoFactorRoutes } from '../features/auth/two-factor.routes.ts';
import { ssoRoutes } from '../features/auth/sso.routes.ts';
import { userSessionsRoutes } from '../features/auth/user-sessions.routes.ts';
import { devMailboxRoutes } from '../features/dev-mailbox/dev-mailbox.routes.ts';
import { filesRoutes } from '../features/files/files.routes.ts';
import { peopleRoutes } from '../features/people/people.routes.ts';
import { fieldsRoutes } from '../features/fields/fields.routes.ts';
import { tagsRoutes } from '../features/tags/tags.routes.ts';
import { segmentsRoutes } from '../features/segments/segments.routes.ts';
import { eventsRoutes } from '../features/events/events.routes.ts';
import { trackingApiRoutes } from '../features/tracking-api/tracking-api.routes.ts';
import { bulkRoutes } from '../features/bulk/bulk.routes.ts';
import { foldersRoutes } from '../features/folders/folders.routes.ts';
import { importsRoutes } from '../features/imports/imports.routes.ts';
import { broadcastsRoutes } from '../features/broadcasts/broadcasts.routes.ts';
import { emailsRoutes } from '../features/emails/emails.routes.ts';
import { systemRoutes } from '../features/system/system.routes.ts';
import { teamRoutes } from '../features/team/team.routes.ts';
import { sendersRoutes } from '../features/senders/senders.routes.ts';
import { domainsRoutes } from '../features/domains/domains.routes.ts';
import { suppressionsRoutes } from '../features/suppressions/suppressions.routes.ts';
import { categoriesRoutes } from '../features/categories/categories.routes.ts';
import { preferencesRoutes } from '../features/preferences/preferences.routes.ts';
import { bouncesRoutes } from '../features/bounces/bounces.routes.ts';
import { transactionalRoutes } from '../features/transactional/transactional.routes.ts';
import { confirmationsRoutes } from '../features/confirmations/confirmations.routes.ts';
import { sendTimesRoutes } from '../features/send-times/send-times.routes.ts';
import { broadcastPauseRoutes } from '../features/broadcasts/broadcast-pause.routes.ts';
import { trackingRoutes } from '../features/tracking/tracking.routes.ts';
import { metricsRoutes } from '../features/metrics/metrics.routes.ts';
import { siteTrackingRoutes } from '../features/site-tracking/site-tracking.routes.ts';
import { dashboardRoutes } from '../features/dashboard/dashboard.routes.ts';
import { flowsRoutes } from '../features/flows/flows.routes.ts';
import { billingRoutes } from '../features/billing/billing.routes.ts';
import { billingProvidersRoutes } from '../features/billing/billing-providers.routes.ts';
import { aiWriterRoutes } from '../features/ai-writer/ai-writer.routes.ts';
import { marketplaceRoutes } from '../features/marketplace/marketplace.routes.ts';
import { flowWebhooksRoutes } from '../features/flows/flow-webhooks.routes.ts';
import { integrationsRoutes } from '../features/integrations/integrations.routes.ts';
import type { RouteDef } from '../http/route.ts';
import { auditLogRoutes } from '../features/audit-log/audit-log.routes.ts';
import { privacyRoutes } from '../features/privacy/privacy.routes.ts';

/** Every API route, feature by feature; tests walk this list. */
export const allRoutes: RouteDef[] = [
  ...systemRoutes,
  ...authRoutes,
  ...twoFactorRoutes,
  ...ssoRoutes,
  ...userSessionsRoutes,
  ...accountsRoutes,
  ...teamRoutes,
  ...privacyRoutes,
  ...peopleRoutes,
  ...fieldsRoutes,
  ...tagsRoutes,
  ...segmentsRoutes,
  ...eventsRoutes,
  ...trackingApiRoutes,
  ...bulkRoutes,
  ...foldersRoutes,
  ...importsRoutes,
  ...emailsRoutes,
  ...broadcastsRoutes,
  ...sendTimesRoutes,
  ...broadcastPauseRoutes,
  ...sendersRoutes,
  ...domainsRoutes,
  ...suppressionsRoutes,
  ...categoriesRoutes,
  ...preferencesRoutes,
  ...filesRoutes,
  ...devMailboxRoutes,
  ...bouncesRoutes,
  ...transactionalRoutes,
  ...confirmationsRoutes,
  ...trackingRoutes,
  ...metricsRoutes,
  ...siteTrackingRoutes,
  ...dashboardRoutes,
  ...flowsRoutes,
  ...flowWebhooksRoutes,
  ...billingRoutes,
  ...billingProvidersRoutes,
  ...aiWriterRoutes,
  ...marketplaceRoutes,
  ...integrationsRoutes,
  ...auditLogRoutes,
];
