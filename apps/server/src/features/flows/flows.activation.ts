import {
  decodeInputFields,
  flowMessages,
  sendStepEmailId,
  serviceMessages,
  type InputFields,
} from '@herald/contracts';
import { validateFlow } from '@herald/flow-engine';
import type { Database } from '../../db/connection.ts';
import { AppError } from '../../http/errors.ts';
import { checkOutgoingUrl, type OutgoingOptions } from '../../lib/outgoing-url.ts';
import { slackConnection } from '../integrations/slack-outbox.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { existingEmails } from './flows.queries.ts';
import { definitionOf } from './flows.shape.ts';
import type { FlowRow } from './flows.queries.ts';
import type { LinkRow } from './links.queries.ts';
import type { StepRow } from './steps.queries.ts';
import { loadResourceLookup, stepReferences } from './steps.shape.ts';

/** A 422 naming the problem; `extra.warnings` lists every problem found (the web lists them under the switch). */
const refuse = (message: string, errorCode: string, warnings: string[] = [message]) =>
  new AppError('UnprocessableError', message, { errorCode, extra: { warnings } });

/**
 * What stops a flow from being switched on, as a 422 (null when it can run), checked in this order: a time
 * trigger has a date and time in the future; the flow's shape and every step's set-up (validateFlow); the
 * segments and emails the steps use still exist; every send step's sender may send (verified address, verified
 * domain, or a test account: the rule broadcasts use); webhook steps call public addresses.
 */
export async function activationProblem(
  db: Database,
  accountId: number,
  flow: FlowRow,
  steps: readonly StepRow[],
  links: readonly LinkRow[],
  now = new Date(),
  outgoing: OutgoingOptions = {},
): Promise<AppError | null> {
  const configs = steps.map((s) => ({ row: s, config: decodeInputFields(s.inputFields as InputFields) }));
  for (const { row, config } of configs) {
    if (row.operationKey !== '/time') continue;
    const at = typeof config.at === 'string' ? Date.parse(config.at) : NaN;
    if (Number.isNaN(at)) return refuse(flowMessages.noDateTime, 'noDateTime');
    if (at <= now.getTime()) return refuse(flowMessages.timeInPast, 'timeInPast');
  }
  const problems = validateFlow(definitionOf(flow, steps, links));
  if (problems.length > 0) return refuse(problems[0]!, 'flowInvalid', problems);

  const lookup = await loadResourceLookup(db, accountId, steps);
  for (const { row, config } of configs) {
    const refs = stepReferences(row.operationKey, config);
    const segment = refs.segments.find((id) => !lookup.segments.has(id));
    if (segment !== undefined) return refuse(flowMessages.segmentGone(segment), 'segmentGone');
    const email = refs.emails.find((id) => !lookup.emails.has(id));
    if (email !== undefined) return refuse(flowMessages.emailGone(email), 'emailGone');
  }

  const sendEmailIds = steps
    .filter((s) => s.operationKey === '/send')
    .map((s) => sendStepEmailId(s.inputFields as InputFields))
    .filter((id): id is number => id !== null);
  const emails = await existingEmails(db, accountId, [...new Set(sendEmailIds)]);
  for (const address of new Set(emails.map((e) => e.fromEmail.trim()))) {
    const standing = await senderStanding(db, accountId, address);
    if (!standing.allowed) return refuse(flowMessages.unverifiedAddress(address), 'senderNotVerified');
  }

  for (const { row, config } of configs) {
    if (row.operationKey !== '/send-webhook' || typeof config.url !== 'string') continue;
    const problem = await checkOutgoingUrl(config.url, outgoing);
    if (problem) return refuse(problem, 'webhookRefused');
  }

  // A Slack step needs a working Slack connection (issue 20).
  if (steps.some((s) => s.operationKey === '/slack-notification')) {
    const slack = await slackConnection(db, accountId);
    if (!slack) return refuse(serviceMessages.slackNeededToActivate, 'no_credentials');
    if (slack.status === 'failed')
      return refuse(serviceMessages.slackFailedToActivate, slack.authReason ?? 'wrong_credentials');
  }
  return null;
}
