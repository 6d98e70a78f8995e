import {
  CreateEmailBody,
  DuplicateEmailBody,
  DuplicateEmailResponse,
  EmailIdParams,
  EmailList,
  EmailListQuery,
  EmailResponse,
  EmailTemplateList,
  emailLimits,
  PreviewEmailBody,
  RenderedEmail,
  TestEmailBody,
  TestEmailResponse,
  UpdateEmailBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { previewEmail } from './email-rendering.ts';
import { emailTemplates } from './email-templates.ts';
import { sendTestEmail } from './email-test-send.ts';
import { createEmail, duplicateEmail, getEmail, getEmails, updateEmail } from './emails.service.ts';

const bodyLimit = emailLimits.bodyLimitBytes;
const sample = {
  subject: 'Welcome, {{ person.firstName | default: "friend" }}',
  fromEmail: 'hello@example.com',
  html: '<p>Hi {{ person.firstName | default: "there" }}</p>',
};

/** Emails (docs/emails.md); scopes as listed in docs/team-and-accounts.md. */
export const emailsRoutes = [
  route({
    method: 'GET',
    url: '/v1/emails',
    auth: 'session',
    scopes: ['emails:read'],
    summary: 'Emails, newest change first; archived ones only when asked',
    query: EmailListQuery,
    response: EmailList,
    handler: ({ db, session, query }) => getEmails(db, session, query.archived),
  }),
  route({
    method: 'GET',
    url: '/v1/emails/templates',
    auth: 'session',
    scopes: ['emails:read'],
    summary: 'Starter templates of the gallery',
    response: EmailTemplateList,
    handler: async () => ({ templates: emailTemplates }),
  }),
  route({
    method: 'GET',
    url: '/v1/emails/:id',
    auth: 'session',
    scopes: ['emails:read'],
    summary: 'One email with its content',
    params: EmailIdParams,
    response: EmailResponse,
    handler: ({ db, session, params }) => getEmail(db, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/emails',
    auth: 'session',
    scopes: ['emails:write'],
    summary: 'Create an email (subject and from email needed)',
    body: CreateEmailBody,
    response: EmailResponse,
    status: 201,
    bodyLimit,
    example: { name: 'Welcome', ...sample },
    handler: ({ db, session, body }) => createEmail(db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/emails/:id',
    auth: 'session',
    scopes: ['emails:write'],
    summary: 'Change an email; editor and html travel together; archived: true archives it',
    params: EmailIdParams,
    body: UpdateEmailBody,
    response: EmailResponse,
    bodyLimit,
    example: { subject: 'Hello again' },
    audit: { before: ({ db, session, params }) => getEmail(db, session, params.id) },
    handler: ({ db, session, params, body }) => updateEmail(db, session, params.id, body),
  }),
  route({
    method: 'POST',
    url: '/v1/emails/test',
    auth: 'session',
    scopes: ['emails:write'],
    summary:
      'Send the draft to up to 5 addresses, rendered for a person or sample data (Idempotency-Key header honoured)',
    body: TestEmailBody,
    response: TestEmailResponse,
    bodyLimit,
    example: { email: sample, sendTo: ['me@example.com'] },
    handler: ({ services, db, session, body, request }) => {
      const key = request.headers['idempotency-key'];
      return sendTestEmail(
        services,
        db,
        session,
        body,
        typeof key === 'string' && key ? key.slice(0, 200) : undefined,
      );
    },
  }),
  route({
    method: 'POST',
    url: '/v1/emails/duplication',
    auth: 'session',
    scopes: ['emails:write'],
    summary: "Copy an email ('Copy of {name}') into this or another of the user's accounts",
    body: DuplicateEmailBody,
    response: DuplicateEmailResponse,
    status: 201,
    example: { emailId: 100 },
    handler: ({ services, db, session, body }) => duplicateEmail(services, db, session, body),
  }),
  route({
    method: 'POST',
    url: '/v1/emails/preview',
    auth: 'session',
    scopes: ['emails:read'],
    summary: 'Render a draft for a person or sample data, with its warnings',
    body: PreviewEmailBody,
    response: RenderedEmail,
    bodyLimit,
    example: { email: sample },
    audit: { isRead: true },
    handler: ({ services, db, session, body }) => previewEmail(services, db, session, body),
  }),
];
