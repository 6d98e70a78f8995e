import { emailWarningMessages, type EmailWarning } from '@herald/contracts';
import { compileEmail } from './compile.ts';
import { TemplateError } from './errors.ts';
import { htmlEngine } from './liquid.ts';
import type { RenderableEmail, RenderAccount } from './types.ts';

export interface LintContext {
  /** Names of the account's person fields (first-class and custom). */
  personFields: readonly string[];
  account: RenderAccount;
}

const linkVariables = new Set(['unsubscribe_url', 'preferences_url', 'view_in_browser_url']);
const accountVariables = new Set(['name', 'mailingAddress', 'site']);

/** Every top-level variable path a template reads, as `person.firstName`, `account.site`, `unsubscribe_url`. */
function variablePaths(source: string): string[] {
  return htmlEngine.globalVariableSegmentsSync(source).map((segments) => segments.map(String).join('.'));
}

function unknownTags(paths: string[], personFields: Set<string>): string[] {
  const unknown = new Set<string>();
  for (const path of paths) {
    const [root, field] = path.split('.');
    if (root === 'person' && field !== undefined && personFields.has(field)) continue;
    if (root === 'person' && field === undefined) continue;
    if (root === 'account' && (field === undefined || accountVariables.has(field))) continue;
    if (root !== undefined && linkVariables.has(root)) continue;
    unknown.add(root === 'person' || root === 'account' ? `${root}.${field}` : path);
  }
  return [...unknown];
}

/**
 * What the email warnings dialog lists before an email is used: an empty subject, no unsubscribe
 * link, no mailing address, merge tags that are not fields, and merge tags that do not parse.
 */
export function lintEmail(email: RenderableEmail, context: LintContext): EmailWarning[] {
  const warnings: EmailWarning[] = [];
  if (!email.subject.trim())
    warnings.push({ code: 'emptySubject', message: emailWarningMessages.emptySubject });
  try {
    compileEmail(email);
  } catch (error) {
    if (error instanceof TemplateError)
      return [...warnings, { code: 'brokenMergeTag', message: error.message }];
    throw error;
  }
  const htmlPaths = variablePaths(email.html);
  const allPaths = [...variablePaths(email.subject), ...variablePaths(email.preheader ?? ''), ...htmlPaths];
  if (!htmlPaths.some((path) => path === 'unsubscribe_url' || path === 'preferences_url')) {
    warnings.push({ code: 'noUnsubscribeLink', message: emailWarningMessages.noUnsubscribeLink });
  }
  const address = context.account.mailingAddress?.trim();
  const printsAddress =
    htmlPaths.includes('account.mailingAddress') || (address ? email.html.includes(address) : false);
  if (!printsAddress || !address)
    warnings.push({ code: 'noMailingAddress', message: emailWarningMessages.noMailingAddress });
  for (const tag of unknownTags(allPaths, new Set(context.personFields))) {
    warnings.push({ code: 'unknownMergeTag', message: emailWarningMessages.unknownMergeTag(tag) });
  }
  return warnings;
}
