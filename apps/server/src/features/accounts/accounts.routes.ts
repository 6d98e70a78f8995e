import { Account, CreateAccountBody, InitialPasswordBody, UpdateAccountBody } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { loadAccount, registerAccount, setInitialPassword, updateMyAccount } from './accounts.service.ts';

/** Account routes (account.md §7). */
export const accountsRoutes = [
  route({ method: 'POST', url: '/v1/accounts/', auth: 'public', summary: 'Register: create an account, its owner and a session', body: CreateAccountBody, response: Account, status: 201,
    handler: ({ services, body, request, reply }) => registerAccount(services, body, request, reply) }),
  route({ method: 'GET', url: '/v1/accounts', auth: 'session', summary: 'The current account', response: Account,
    handler: ({ services, session }) => loadAccount(services.db, session) }),
  route({ method: 'PATCH', url: '/v1/accounts/me', auth: 'session', summary: 'Update the current account', body: UpdateAccountBody, response: Account,
    handler: ({ services, session, body }) => updateMyAccount(services, session, body) }),
  route({ method: 'POST', url: '/v1/accounts/initial-password', auth: 'session', summary: "Set the registering user's first password", body: InitialPasswordBody, response: Account,
    handler: ({ services, session, body }) => setInitialPassword(services, session, body.password) }),
];
