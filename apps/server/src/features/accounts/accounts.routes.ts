import {
  Account,
  AccountIdParams,
  AccountIssues,
  AccountList,
  ApiKeyResponse,
  CreateAccountBody,
  CreateSubaccountBody,
  DeleteAccountResponse,
  InitialPasswordBody,
  LogoUploadBody,
  SubaccountResponse,
  UpdateAccountBody,
  UploadUrlResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { loadAccount, registerAccount, setInitialPassword, updateMyAccount } from './accounts.service.ts';
import {
  accountIssues,
  createSubaccount,
  deleteAccount,
  listMyAccounts,
  logoUploadUrl,
  rotateApiKey,
  switchAccount,
} from './account-admin.service.ts';

/** Account routes (docs/team-and-accounts.md). */
export const accountsRoutes = [
  route({ method: 'POST', url: '/v1/accounts/', auth: 'public', example: { email: 'new-user@example.com', source: 'web', timezone: 'Europe/Berlin' }, summary: 'Register: create an account, its owner and a session', body: CreateAccountBody, response: Account, status: 201,
    handler: ({ services, body, request, reply }) => registerAccount(services, body, request, reply) }),
  route({ method: 'GET', url: '/v1/accounts', auth: 'session', summary: 'The current account', response: Account,
    handler: ({ services, db, session }) => loadAccount(db, session, services.db, services.config) }),
  route({ method: 'PATCH', url: '/v1/accounts/me', auth: 'session', example: { name: 'Probe' }, summary: 'Update the current account', body: UpdateAccountBody, response: Account,
    handler: ({ services, db, session, body }) => updateMyAccount(services, db, session, body) }),
  route({ method: 'POST', url: '/v1/accounts/initial-password', auth: 'session', example: { password: 'a long password' }, summary: "Set the registering user's first password", body: InitialPasswordBody, response: Account,
    handler: ({ services, db, session, body }) => setInitialPassword(services, db, session, body.password) }),
  route({ method: 'POST', url: '/v1/accounts/:id/switch', auth: 'session', summary: 'Act in another account of the user', params: AccountIdParams, response: Account,
    handler: ({ services, session, params }) => switchAccount(services, session, params.id) }),
  route({ method: 'DELETE', url: '/v1/accounts/:id', auth: 'session', summary: 'Delete an account the user owns (not the current one)', params: AccountIdParams, response: DeleteAccountResponse,
    handler: ({ services, session, params }) => deleteAccount(services, session, params.id) }),
  route({ method: 'POST', url: '/v1/accounts/logo', auth: 'session', scopes: ['account:write'], example: { contentType: 'image/png' }, summary: 'Signed upload URL for a new logo', body: LogoUploadBody, response: UploadUrlResponse,
    handler: async ({ services, session, body }) => logoUploadUrl(services, session, body) }),
  route({ method: 'POST', url: '/v1/accounts/rotate-api-key', auth: 'session', scopes: ['apiKeys:write'], summary: 'Replace the account API key', response: ApiKeyResponse,
    handler: ({ db, session }) => rotateApiKey(db, session) }),
  route({ method: 'GET', url: '/v1/accounts/issues', auth: 'session', summary: 'Open issues that pause sending', response: AccountIssues,
    handler: ({ db, session }) => accountIssues(db, session) }),
  route({ method: 'GET', url: '/v1/team-members/accounts', auth: 'session', summary: 'Accounts the user belongs to', response: AccountList,
    handler: ({ services, session }) => listMyAccounts(services, session) }),
  route({ method: 'POST', url: '/v1/team-members/accounts', auth: 'session', scopes: ['subaccounts:write'], example: { name: 'Probe sub-account', timezone: 'UTC' }, summary: 'Create a sub-account', body: CreateSubaccountBody, response: SubaccountResponse, status: 201,
    handler: ({ services, db, session, body }) => createSubaccount(services, db, session, body) }),
];
