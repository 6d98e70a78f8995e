import {
  AddSenderAddressBody,
  ConfirmSenderBody,
  ConfirmSenderResponse,
  MessageResponse,
  SendVerificationBody,
  SenderAddressList,
  SenderAddressParams,
  SenderAddressResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import {
  addAddress,
  confirmAddress,
  listAddresses,
  removeAddress,
  resendVerification,
} from './senders.service.ts';

/** Sender addresses (docs/senders-and-consent.md): proved by a link mailed to them. */
export const sendersRoutes = [
  route({
    method: 'GET',
    url: '/v1/settings/email/addresses',
    auth: 'session',
    summary: 'Sender addresses with their verification status',
    response: SenderAddressList,
    handler: ({ db, session }) => listAddresses(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/settings/email/addresses',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Add a sender address and mail it a verification link',
    body: AddSenderAddressBody,
    response: SenderAddressResponse,
    status: 201,
    example: { email: 'news@example.com' },
    handler: ({ services, db, session, body }) => addAddress(services, db, session, body.email),
  }),
  route({
    method: 'POST',
    url: '/v1/settings/email/addresses/verification',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: "Send the verification mail again ('Verification email sent')",
    body: SendVerificationBody,
    response: MessageResponse,
    example: { emails: ['news@example.com'] },
    handler: ({ services, db, session, body }) => resendVerification(services, db, session, body.emails),
  }),
  route({
    method: 'DELETE',
    url: '/v1/settings/email/addresses/:email',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Remove a sender address',
    params: SenderAddressParams,
    audit: {
      before: async ({ db, session, params }) =>
        (await listAddresses(db, session)).emails.find((a) => a.email === params.email.trim().toLowerCase()),
    },
    handler: ({ db, session, params }) => removeAddress(db, session, params.email),
  }),
  route({
    method: 'POST',
    url: '/v1/sender-verification',
    auth: 'public',
    summary: 'Confirm a sender address with the token of its verification link',
    body: ConfirmSenderBody,
    response: ConfirmSenderResponse,
    example: { token: 'sealed-token' },
    handler: async ({ services, body, request }) => {
      await enforceRateLimit(services.db, `sender-verification-link:${request.ip}`, 60, 600);
      return confirmAddress(services, body.token);
    },
  }),
];
