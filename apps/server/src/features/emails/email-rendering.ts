import { firstClassFieldNames, peopleMessages, type EmailDraft, type RenderedEmail } from '@herald/contracts';
import {
  compileEmail,
  lintEmail,
  renderCompiled,
  TemplateError,
  type CompiledEmail,
  type RenderAccount,
  type RenderPerson,
} from '@herald/email';
import type { Database } from '../../db/connection.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { findAccount } from '../accounts/accounts.queries.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { findPerson, toPerson } from '../people/people.queries.ts';

/** What an email is rendered with: a person (or sample data), the account, and the names of the person fields. */
export interface RenderContext {
  person: RenderPerson;
  personId: number | null;
  account: RenderAccount;
  personFields: string[];
  /** The account tags links with UTM parameters (Settings → Email → General). */
  linkUTMs: boolean;
}

/** Sample data for previews and tests when no person is chosen: first-class fields only, so custom fields show their fallbacks. */
const samplePerson: RenderPerson = {
  email: 'jane.doe@example.com',
  firstName: 'Jane',
  lastName: 'Doe',
  phone: '+1 555 0100',
  company: 'Example Co.',
  website: 'https://example.com',
  userId: 'sample-1',
  tags: ['sample'],
};

/** A merge-tag error as the API reports it: 422, the message naming the part and line. */
function templateFailure(error: TemplateError): AppError {
  return new AppError('UnprocessableError', error.message, {
    extra: { part: error.part, ...(error.line ? { line: error.line } : {}) },
  });
}

/** Compile the email's templates; a broken merge tag is a 422 that names where it is. */
export function compileOrThrow(email: {
  subject: string;
  preheader?: string;
  html: string;
  fromEmail?: string;
}): CompiledEmail {
  try {
    return compileEmail({
      subject: email.subject,
      preheader: email.preheader ?? '',
      html: email.html,
      fromEmail: email.fromEmail ?? '',
    });
  } catch (error) {
    if (error instanceof TemplateError) throw templateFailure(error);
    throw error;
  }
}

/** Refuse content whose merge tags do not parse, before anything is written. */
export function checkTemplates(email: { subject: string; preheader: string; html: string }): void {
  compileOrThrow(email);
}

export async function renderContext(
  db: Database,
  session: Session,
  personId: number | undefined,
): Promise<RenderContext> {
  const account = await findAccount(db, session.accountId);
  const customFields = await listCustomFields(db, session.accountId);
  let person = samplePerson;
  if (personId !== undefined) {
    const row = await findPerson(db, session.accountId, personId);
    if (!row) throw notFound(peopleMessages.personNotFound);
    const shaped = toPerson(row);
    person = { ...shaped, email: shaped.email ?? '', tags: row.tags };
  }
  return {
    person,
    personId: personId ?? null,
    account: {
      name: account?.name ?? null,
      mailingAddress: account?.mailingAddress ?? null,
      site: account?.site ?? null,
    },
    personFields: [...firstClassFieldNames, 'tags', ...customFields.map((field) => field.name)],
    linkUTMs: account?.linkUtms ?? false,
  };
}

/**
 * The links of a preview or a test send. They open the preferences page in its preview state: a
 * test recipient is not a person of the account and must not unsubscribe anyone.
 */
export function previewLinks(services: Services) {
  const base = services.config.publicUrl.replace(/\/$/, '');
  return {
    unsubscribeUrl: `${base}/public/unsubscribe?preview=1`,
    preferencesUrl: `${base}/public/subscription-preferences?preview=1`,
    viewInBrowserUrl: `${base}/public/subscription-preferences?preview=1`,
  };
}

/** Render a compiled email for the context; a runaway template is a 422 like a broken one. */
export async function renderFor(
  compiled: CompiledEmail,
  context: RenderContext,
  options: Parameters<typeof renderCompiled>[3],
  name?: string,
) {
  try {
    const utm = context.linkUTMs ? { utmCampaign: name?.trim() || 'email' } : {};
    return await renderCompiled(compiled, context.person, context.account, { ...options, ...utm });
  } catch (error) {
    if (error instanceof TemplateError) throw templateFailure(error);
    throw error;
  }
}

/** POST /v1/emails/preview: the draft as the chosen person (or sample data) would get it, with the warnings. */
export async function previewEmail(
  services: Services,
  db: Database,
  session: Session,
  body: { email: EmailDraft; personId?: number },
): Promise<RenderedEmail> {
  const context = await renderContext(db, session, body.personId);
  const compiled = compileOrThrow(body.email);
  const host = new URL(services.config.publicUrl).hostname || 'localhost';
  const rendered = await renderFor(
    compiled,
    context,
    { messageId: `<preview@${host}>`, ...previewLinks(services) },
    body.email.name,
  );
  const warnings = lintEmail(
    {
      subject: body.email.subject,
      preheader: body.email.preheader ?? '',
      html: body.email.html,
      fromEmail: body.email.fromEmail ?? '',
    },
    { personFields: context.personFields, account: context.account },
  );
  return {
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    personId: context.personId,
    warnings,
  };
}
