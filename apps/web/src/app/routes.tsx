import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { confirmSubscriptionRoute } from '../features/consent/consent-routes.ts';
import { RequireAuth } from './require-auth.tsx';
import { RootLayout, type RouteHandle } from './root-layout.tsx';
import { RouteErrorPage } from './route-error-page.tsx';

const title = (name: string): { handle: RouteHandle } => ({ handle: { title: name } });

/**
 * Every route of the app (docs/web-app.md). Each page is loaded on first visit (`lazy`), so a work area's code and
 * its libraries (the email editors above all) stay out of the first page's download.
 * Public routes first; everything under RequireAuth needs a session. */
const publicRoutes: RouteObject[] = [
  {
    path: 'login',
    ...title('Login'),
    lazy: () => import('../features/auth/login-page.tsx').then((m) => ({ Component: m.LoginPage })),
  },
  {
    path: 'login/two-factor',
    ...title('Two-factor sign-in'),
    lazy: () =>
      import('../features/two-factor/sign-in-code-page.tsx').then((m) => ({ Component: m.SignInCodePage })),
  },
  {
    path: 'login/two-factor/setup',
    ...title('Set up two-factor sign-in'),
    lazy: () =>
      import('../features/two-factor/sign-in-setup-page.tsx').then((m) => ({ Component: m.SignInSetupPage })),
  },
  {
    path: 'sso/callback',
    ...title('Single sign-on'),
    lazy: () =>
      import('../features/sso/sso-callback-page.tsx').then((m) => ({ Component: m.SsoCallbackPage })),
  },
  {
    path: 'error',
    ...title('Error'),
    lazy: () => import('../features/auth/error-page.tsx').then((m) => ({ Component: m.ErrorPage })),
  },
  {
    path: 'request-reset-password',
    ...title('Reset Password'),
    lazy: () =>
      import('../features/auth/request-reset-password-page.tsx').then((m) => ({
        Component: m.RequestResetPasswordPage,
      })),
  },
  {
    path: 'reset-password',
    ...title('Choose a New Password'),
    lazy: () =>
      import('../features/auth/reset-password-page.tsx').then((m) => ({ Component: m.ResetPasswordPage })),
  },
  {
    path: 'register',
    ...title('Register'),
    lazy: () =>
      import('../features/registration/register-page.tsx').then((m) => ({ Component: m.RegisterPage })),
  },
  {
    path: 'register/:stepId',
    ...title('Register'),
    lazy: () =>
      import('../features/registration/register-page.tsx').then((m) => ({ Component: m.RegisterPage })),
  },
  {
    path: 'public/register/appsumo',
    ...title('Register'),
    lazy: () =>
      import('../features/marketplace/marketplace-register-page.tsx').then((m) => ({
        Component: m.MarketplaceRegisterPage,
      })),
  },
  {
    path: 'public/subscription-preferences',
    ...title('Subscription Preferences'),
    lazy: () =>
      import('../features/preferences/preference-centre-page.tsx').then((m) => ({
        Component: m.PreferenceCentrePage,
      })),
  },
  {
    path: 'public/unsubscribe',
    ...title('Unsubscribe'),
    lazy: () =>
      import('../features/preferences/unsubscribe-page.tsx').then((m) => ({ Component: m.UnsubscribePage })),
  },
  confirmSubscriptionRoute,
  {
    path: 'public/verify-sender',
    ...title('Verify Sender Address'),
    lazy: () =>
      import('../features/senders/verify-sender-page.tsx').then((m) => ({ Component: m.VerifySenderPage })),
  },
  {
    path: 'public/accept-invite',
    ...title('Accept Invitation'),
    lazy: () =>
      import('../features/team/accept-invite-page.tsx').then((m) => ({ Component: m.AcceptInvitePage })),
  },
  {
    path: 'public/privacy',
    ...title('Privacy Policy'),
    lazy: () =>
      import('../features/public-pages/legal-pages.tsx').then((m) => ({ Component: m.PrivacyPage })),
  },
  {
    path: 'public/terms',
    ...title('Terms of Service'),
    lazy: () => import('../features/public-pages/legal-pages.tsx').then((m) => ({ Component: m.TermsPage })),
  },
  {
    path: 'dev/mailbox',
    ...title('Development Mailbox'),
    lazy: () =>
      import('../features/dev-mailbox/mailbox-page.tsx').then((m) => ({ Component: m.MailboxPage })),
  },
];

const startRoutes: RouteObject[] = [
  {
    path: 'start',
    ...title('Quick Start'),
    lazy: () => import('../features/start/start-page.tsx').then((m) => ({ Component: m.StartPage })),
  },
  {
    path: 'start/:stageName',
    ...title('Quick Start'),
    lazy: () => import('../features/start/start-page.tsx').then((m) => ({ Component: m.StartPage })),
  },
];

const accountRoutes: RouteObject[] = [
  // The account's settings, under its three addresses.
  ...['account/info', 'account-info', 'settings/account'].map((path) => ({
    path,
    ...title('Your Account'),
    lazy: () =>
      import('../features/account/account-info-page.tsx').then((m) => ({ Component: m.AccountInfoPage })),
  })),
  {
    path: 'profile',
    ...title('Profile'),
    lazy: () => import('../features/account/profile-page.tsx').then((m) => ({ Component: m.ProfilePage })),
  },
  {
    path: 'settings/profile',
    ...title('Profile'),
    lazy: () => import('../features/account/profile-page.tsx').then((m) => ({ Component: m.ProfilePage })),
  },
  {
    path: 'settings/team',
    ...title('Team Members'),
    lazy: () => import('../features/team/team-page.tsx').then((m) => ({ Component: m.TeamPage })),
  },
  {
    path: 'settings/audit-log',
    ...title('Audit Log'),
    lazy: () =>
      import('../features/audit-log/audit-log-page.tsx').then((m) => ({ Component: m.AuditLogPage })),
  },
  {
    path: 'settings/accounts',
    ...title('Manage Accounts'),
    lazy: () => import('../features/accounts/accounts-page.tsx').then((m) => ({ Component: m.AccountsPage })),
  },
];

const areaRoutes: RouteObject[] = [
  {
    path: 'dashboard',
    ...title('Dashboard'),
    lazy: () =>
      import('../features/dashboard/dashboard-page.tsx').then((m) => ({ Component: m.DashboardPage })),
  },
  {
    path: 'segments',
    ...title('Segments'),
    lazy: () => import('../features/people/people-page.tsx').then((m) => ({ Component: m.PeoplePage })),
  },
  {
    path: 'segments/:id',
    ...title('Segment'),
    lazy: () => import('../features/people/people-page.tsx').then((m) => ({ Component: m.PeoplePage })),
  },
  {
    path: 'people',
    ...title('People'),
    lazy: () => import('../features/people/people-page.tsx').then((m) => ({ Component: m.PeoplePage })),
  },
  {
    path: 'people/imports/new',
    ...title('New Import'),
    lazy: () =>
      import('../features/imports/new-import-page.tsx').then((m) => ({ Component: m.NewImportLayout })),
    children: [
      {
        index: true,
        lazy: () =>
          import('../features/imports/new-import-page.tsx').then((m) => ({ Component: m.NewImportRedirect })),
      },
      {
        path: ':stageName',
        lazy: () =>
          import('../features/imports/new-import-page.tsx').then((m) => ({ Component: m.NewImportPage })),
      },
    ],
  },
  {
    path: 'people/imports',
    ...title('Imports'),
    lazy: () => import('../features/imports/imports-page.tsx').then((m) => ({ Component: m.ImportsPage })),
  },
  {
    path: 'people/imports/:id',
    ...title('Import'),
    lazy: () => import('../features/imports/import-page.tsx').then((m) => ({ Component: m.ImportPage })),
  },
  {
    path: 'people/:id',
    ...title('Person'),
    lazy: () => import('../features/people/person-page.tsx').then((m) => ({ Component: m.PersonPage })),
  },
  {
    path: 'flows',
    ...title('Flows'),
    lazy: () => import('../features/flows/flows-page.tsx').then((m) => ({ Component: m.FlowsPage })),
  },
  {
    path: 'flows/:id',
    ...title('Flow'),
    lazy: () => import('../features/flows/flow-page.tsx').then((m) => ({ Component: m.FlowPage })),
  },
  {
    path: 'emails',
    ...title('Emails'),
    lazy: () => import('../features/emails/emails-page.tsx').then((m) => ({ Component: m.EmailsPage })),
  },
  {
    path: 'emails/:id',
    ...title('Email'),
    lazy: () => import('../features/emails/email-page.tsx').then((m) => ({ Component: m.EmailPage })),
  },
  {
    path: 'broadcasts',
    ...title('Broadcasts'),
    lazy: () =>
      import('../features/broadcasts/broadcasts-page.tsx').then((m) => ({ Component: m.BroadcastsPage })),
  },
  {
    path: 'broadcasts/:id',
    ...title('Broadcast'),
    lazy: () =>
      import('../features/broadcasts/broadcast-page.tsx').then((m) => ({ Component: m.BroadcastPage })),
  },
  {
    path: 'metrics',
    ...title('Metrics'),
    lazy: () => import('../features/metrics/metrics-page.tsx').then((m) => ({ Component: m.MetricsPage })),
  },
  {
    path: 'apps',
    ...title('Apps'),
    lazy: () => import('../features/integrations/apps-page.tsx').then((m) => ({ Component: m.AppsPage })),
  },
  {
    path: 'settings/apps',
    ...title('Apps'),
    lazy: () => import('../features/integrations/apps-page.tsx').then((m) => ({ Component: m.AppsPage })),
  },
  {
    path: 'billing',
    ...title('Plan and Billing'),
    lazy: () => import('../features/billing/billing-page.tsx').then((m) => ({ Component: m.BillingPage })),
  },
  {
    path: 'settings/billing',
    ...title('Plan and Billing'),
    lazy: () => import('../features/billing/billing-page.tsx').then((m) => ({ Component: m.BillingPage })),
  },
  {
    path: 'settings/site-tracking',
    ...title('Site Tracking'),
    lazy: () =>
      import('../features/site-tracking/site-tracking-page.tsx').then((m) => ({
        Component: m.SiteTrackingPage,
      })),
  },
  {
    path: 'settings/site-tracking/forms',
    ...title('Form Tracking'),
    lazy: () => import('../features/site-tracking/forms-page.tsx').then((m) => ({ Component: m.FormsPage })),
  },
  {
    path: 'settings/site-tracking/forms/edit',
    ...title('Edit Form'),
    lazy: () =>
      import('../features/site-tracking/form-edit-page.tsx').then((m) => ({ Component: m.FormEditPage })),
  },
  {
    path: 'settings/email',
    ...title('Sender Addresses'),
    lazy: () =>
      import('../features/senders/sender-addresses-page.tsx').then((m) => ({
        Component: m.SenderAddressesPage,
      })),
  },
  {
    path: 'settings/email/addresses',
    ...title('Sender Addresses'),
    lazy: () =>
      import('../features/senders/sender-addresses-page.tsx').then((m) => ({
        Component: m.SenderAddressesPage,
      })),
  },
  {
    path: 'settings/email/domains',
    ...title('Sender Domains'),
    lazy: () =>
      import('../features/senders/sender-domains-page.tsx').then((m) => ({ Component: m.SenderDomainsPage })),
  },
  {
    path: 'settings/email/domains/:id',
    ...title('Sender Domain'),
    lazy: () =>
      import('../features/senders/sender-domain-page.tsx').then((m) => ({ Component: m.SenderDomainPage })),
  },
  {
    path: 'settings/communication-categories',
    ...title('Communication Categories'),
    lazy: () =>
      import('../features/categories/categories-page.tsx').then((m) => ({ Component: m.CategoriesPage })),
  },
  {
    path: 'settings/email/suppressions',
    ...title('Suppression List'),
    lazy: () =>
      import('../features/suppressions/suppressions-page.tsx').then((m) => ({
        Component: m.SuppressionsPage,
      })),
  },
  {
    path: 'settings/email/fonts',
    ...title('Email Fonts'),
    lazy: () =>
      import('../features/email-settings/email-fonts-page.tsx').then((m) => ({
        Component: m.EmailFontsPage,
      })),
  },
  {
    path: 'settings/email/general',
    ...title('Email Settings'),
    lazy: () =>
      import('../features/email-settings/email-general-page.tsx').then((m) => ({
        Component: m.EmailGeneralPage,
      })),
  },
  {
    path: 'settings/person-fields',
    ...title('Custom Fields'),
    lazy: () =>
      import('../features/fields/person-fields-page.tsx').then((m) => ({ Component: m.PersonFieldsPage })),
  },
  {
    path: 'settings/tags',
    ...title('Tags'),
    lazy: () => import('../features/tags/tags-page.tsx').then((m) => ({ Component: m.TagsPage })),
  },
];

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteErrorPage />,
    children: [
      ...publicRoutes,
      {
        element: <RequireAuth />,
        children: [
          {
            lazy: () => import('./shell/app-shell.tsx').then((m) => ({ Component: m.AppShellLayout })),
            children: [
              { index: true, ...title('Home'), element: <Navigate to="/dashboard" replace /> },
              ...startRoutes,
              ...accountRoutes,
              ...areaRoutes,
            ],
          },
        ],
      },
      { path: '*', element: <Navigate to="/dashboard" replace /> },
    ],
  },
];

export const router = createBrowserRouter(routes);
