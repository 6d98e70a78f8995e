import {
  AddDomainBody,
  IdParams,
  SenderDomainList,
  SenderDomainResponse,
  VerifyDomainResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { addDomain, deleteDomain, getDomain, listDomains, verifyDomain } from './domains.service.ts';

/** Sender domains (docs/senders-and-consent.md): DKIM, SPF, DMARC and return path, checked live. */
export const domainsRoutes = [
  route({
    method: 'GET',
    url: '/v1/settings/email/domains',
    auth: 'session',
    summary: 'Sender domains with their records and last check',
    response: SenderDomainList,
    handler: ({ services, db, session }) => listDomains(services, db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/settings/email/domains',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: "Add a domain (input reduced to a domain; 'Invalid domain name')",
    body: AddDomainBody,
    response: SenderDomainResponse,
    status: 201,
    example: { domain: 'https://www.example.com/about' },
    handler: ({ services, db, session, body }) => addDomain(services, db, session, body.domain),
  }),
  route({
    method: 'GET',
    url: '/v1/settings/email/domains/:id',
    auth: 'session',
    summary: 'One domain with the records to publish',
    params: IdParams,
    response: SenderDomainResponse,
    handler: ({ services, db, session, params }) => getDomain(services, db, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/settings/email/domains/:id/verify',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Check the DNS records now',
    params: IdParams,
    response: VerifyDomainResponse,
    audit: {
      compare: 'answer',
      before: ({ services, db, session, params }) => getDomain(services, db, session, params.id),
    },
    handler: ({ services, db, session, params }) => verifyDomain(services, db, session, params.id),
  }),
  route({
    method: 'DELETE',
    url: '/v1/settings/email/domains/:id',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Delete a domain and its DKIM key',
    params: IdParams,
    audit: { before: ({ services, db, session, params }) => getDomain(services, db, session, params.id) },
    handler: ({ db, session, params }) => deleteDomain(db, session, params.id),
  }),
];
