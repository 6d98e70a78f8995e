import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { AccountInfoPage } from '../features/account/account-info-page.tsx';
import { ProfilePage } from '../features/account/profile-page.tsx';
import { AccountsPage } from '../features/accounts/accounts-page.tsx';
import { AreaPage } from '../features/areas/area-page.tsx';
import { ErrorPage } from '../features/auth/error-page.tsx';
import { LoginPage } from '../features/auth/login-page.tsx';
import { RequestResetPasswordPage } from '../features/auth/request-reset-password-page.tsx';
import { ResetPasswordPage } from '../features/auth/reset-password-page.tsx';
import { MailboxPage } from '../features/dev-mailbox/mailbox-page.tsx';
import { PrivacyPage, TermsPage } from '../features/public-pages/legal-pages.tsx';
import { PublicAreaPage } from '../features/public-pages/public-area-page.tsx';
import { RegisterPage } from '../features/registration/register-page.tsx';
import { PersonFieldsPage } from '../features/fields/person-fields-page.tsx';
import { ImportPage } from '../features/imports/import-page.tsx';
import { ImportsPage } from '../features/imports/imports-page.tsx';
import { NewImportLayout, NewImportPage, NewImportRedirect } from '../features/imports/new-import-page.tsx';
import { PeoplePage } from '../features/people/people-page.tsx';
import { PersonPage } from '../features/people/person-page.tsx';
import { TagsPage } from '../features/tags/tags-page.tsx';
import { StartPage } from '../features/start/start-page.tsx';
import { AcceptInvitePage } from '../features/team/accept-invite-page.tsx';
import { TeamPage } from '../features/team/team-page.tsx';
import { RequireAuth } from './require-auth.tsx';
import { RootLayout, type RouteHandle } from './root-layout.tsx';
import { RouteErrorPage } from './route-error-page.tsx';
import { AppShellLayout } from './shell/app-shell.tsx';

const title = (name: string): { handle: RouteHandle } => ({ handle: { title: name } });

/** An area not in this version: its own title and a plain description. */
function area(path: string, name: string, description: string): RouteObject {
  return { path, ...title(name), element: <AreaPage title={name} description={description} /> };
}

/** Every route of account.md §2. Public routes first; everything under RequireAuth needs a session. */
const publicRoutes: RouteObject[] = [
  { path: 'login', ...title('Login'), element: <LoginPage /> },
  { path: 'error', ...title('Error'), element: <ErrorPage /> },
  { path: 'request-reset-password', ...title('Reset Password'), element: <RequestResetPasswordPage /> },
  { path: 'reset-password', ...title('Choose a New Password'), element: <ResetPasswordPage /> },
  { path: 'register', ...title('Register'), element: <RegisterPage /> },
  { path: 'register/:stepId', ...title('Register'), element: <RegisterPage /> },
  {
    path: 'public/register/appsumo',
    ...title('Register'),
    element: <PublicAreaPage title="Marketplace registration" />,
  },
  {
    path: 'public/subscription-preferences',
    ...title('Subscription Preferences'),
    element: <PublicAreaPage title="Subscription preferences" />,
  },
  { path: 'public/accept-invite', ...title('Accept Invitation'), element: <AcceptInvitePage /> },
  { path: 'public/privacy', ...title('Privacy Policy'), element: <PrivacyPage /> },
  { path: 'public/terms', ...title('Terms of Service'), element: <TermsPage /> },
  { path: 'dev/mailbox', ...title('Development Mailbox'), element: <MailboxPage /> },
];

const startRoutes: RouteObject[] = [
  { path: 'start', ...title('Quick Start'), element: <StartPage /> },
  { path: 'start/:stageName', ...title('Quick Start'), element: <StartPage /> },
];

const accountRoutes: RouteObject[] = [
  { path: 'account/info', ...title('Your Account'), element: <AccountInfoPage /> },
  { path: 'account-info', ...title('Your Account'), element: <AccountInfoPage /> },
  { path: 'settings/account', ...title('Your Account'), element: <AccountInfoPage /> },
  { path: 'profile', ...title('Profile'), element: <ProfilePage /> },
  { path: 'settings/profile', ...title('Profile'), element: <ProfilePage /> },
  { path: 'settings/team', ...title('Team Members'), element: <TeamPage /> },
  { path: 'settings/accounts', ...title('Manage Accounts'), element: <AccountsPage /> },
];

const areaRoutes: RouteObject[] = [
  area('dashboard', 'Dashboard', 'An overview of your people, flows and email results.'),
  { path: 'segments', ...title('Segments'), element: <PeoplePage /> },
  { path: 'segments/:id', ...title('Segment'), element: <PeoplePage /> },
  { path: 'people', ...title('People'), element: <PeoplePage /> },
  {
    path: 'people/imports/new',
    ...title('New Import'),
    element: <NewImportLayout />,
    children: [
      { index: true, element: <NewImportRedirect /> },
      { path: ':stageName', element: <NewImportPage /> },
    ],
  },
  { path: 'people/imports', ...title('Imports'), element: <ImportsPage /> },
  { path: 'people/imports/:id', ...title('Import'), element: <ImportPage /> },
  { path: 'people/:id', ...title('Person'), element: <PersonPage /> },
  area('flows', 'Flows', 'Automations that send the right email when people do something.'),
  area('flows/:id', 'Flow', 'Build and run one automation.'),
  area('emails', 'Emails', 'The emails used by your flows.'),
  area('emails/:id', 'Email', 'Write and preview one email.'),
  area('broadcasts', 'Broadcasts', 'One-off emails sent to a segment.'),
  area('broadcasts/:id', 'Broadcast', 'Write, schedule and send one broadcast.'),
  area('metrics', 'Metrics', 'Opens, clicks and unsubscribes across your emails.'),
  area('apps', 'Apps', 'Connect the tools that send Herald your data and events.'),
  area('settings/apps', 'Apps', 'Connect the tools that send Herald your data and events.'),
  area(
    'billing',
    'Plan and Billing',
    'Choose a plan and manage payment. Plans are priced by the number of people.',
  ),
  area(
    'settings/billing',
    'Plan and Billing',
    'Choose a plan and manage payment. Plans are priced by the number of people.',
  ),
  area('settings/site-tracking', 'Site Tracking', 'Track page visits on your site.'),
  area('settings/site-tracking/forms', 'Form Tracking', 'Capture people from the forms on your site.'),
  area('settings/site-tracking/forms/edit', 'Edit Form', 'Map a form on your site to person fields.'),
  area('settings/email', 'Email Settings', 'Sender addresses, domains and fonts.'),
  area('settings/email/addresses', 'Sender Addresses', 'The addresses your emails are sent from.'),
  area('settings/email/domains', 'Sender Domains', 'Domains verified for sending.'),
  area('settings/email/domains/:id', 'Sender Domain', 'DNS records for one sending domain.'),
  area(
    'settings/communication-categories',
    'Communication Categories',
    'Kinds of email people can opt in or out of.',
  ),
  area('settings/email/fonts', 'Email Fonts', 'Custom fonts for your emails.'),
  area('settings/email/general', 'Email Settings', 'Defaults for every email you send.'),
  { path: 'settings/person-fields', ...title('Custom Fields'), element: <PersonFieldsPage /> },
  { path: 'settings/tags', ...title('Tags'), element: <TagsPage /> },
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
            element: <AppShellLayout />,
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
