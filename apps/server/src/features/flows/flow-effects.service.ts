import type { Effect } from '@herald/flow-engine';
import type { Database } from '../../db/connection.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { queueMail } from '../../mail/mailer.ts';
import { queueSlackMessage } from '../integrations/slack-outbox.ts';
import type { Services } from '../../services.ts';
import {
  addTagTo,
  archivePeople,
  changeField,
  changeLeadScore,
  peopleData,
  queueFlowDeliveries,
  removeTagFrom,
  storeWebhookCalls,
  teamAddresses,
  type FlowSend,
  type WebhookCall,
} from './flow-effects.queries.ts';

/**
 * Apply the effects of a batch of runs set-wise, in the batch's transaction: one statement per tag, field, score
 * change and send step, whatever the number of runs. Effects leaving the system (mail, webhooks) are rows written
 * here under the effect's key and sent by jobs after commit, so a batch rolled back sends nothing and a batch
 * redone stores nothing twice.
 */

export interface RunEffects {
  runId: number;
  personId: number;
  effects: Effect[];
}

/** The sequence number of an effect key `${run.id}:${seq}`. */
export const seqOf = (key: string) => Number(key.slice(key.indexOf(':') + 1));

const group = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Fill `{{ person.email }}`-style tags with the person's values (no template code runs). */
function fillPersonTags(text: string, person: Record<string, unknown> | undefined): string {
  return text.replace(/\{\{\s*person\.([A-Za-z0-9_]+)\s*\}\}/g, (_m, name: string) => {
    const fields = (person?.fields ?? {}) as Record<string, unknown>;
    const value = person?.[name] ?? fields[name];
    return value === null || value === undefined ? '' : String(value);
  });
}

/**
 * Apply a batch's effects; returns the send steps that queued deliveries, whose `deliver` job the caller wakes after
 * commit (ensureDeliverJob), so a hundred batches start one send per step rather than a hundred.
 */
export async function applyEffects(
  services: Services,
  db: Database,
  accountId: number,
  flowId: number,
  batch: RunEffects[],
  emails: Map<number, { id: number; category: { id: number; type: 'marketing' | 'transactional' } }>,
): Promise<Set<number>> {
  const sendSteps = new Set<number>();
  const addTags = new Map<string, number[]>();
  const removeTags = new Map<string, number[]>();
  const fields = new Map<
    string,
    { field: string; value: string | number | boolean | null; people: number[] }
  >();
  const scores = new Map<number, number[]>();
  const archive: number[] = [];
  const sends = new Map<number, { emailId: number; sends: FlowSend[] }>();
  const notifications: { key: string; personId: number; to: string[]; subject: string; body: string }[] = [];
  const webhooks: { key: string; stepId: number; runId: number; personId: number; url: string }[] = [];
  const slackMessages: { key: string; stepId: number; personId: number; text: string }[] = [];

  for (const { runId, personId, effects } of batch) {
    for (const effect of effects) {
      switch (effect.kind) {
        case 'executed':
          break;
        case 'addTag':
          group(addTags, effect.tag, personId);
          break;
        case 'removeTag':
          group(removeTags, effect.tag, personId);
          break;
        case 'changeField': {
          const key = JSON.stringify([effect.field, effect.value]);
          const entry = fields.get(key) ?? { field: effect.field, value: effect.value, people: [] };
          entry.people.push(personId);
          fields.set(key, entry);
          break;
        }
        case 'leadScore':
          group(scores, effect.change, personId);
          break;
        case 'archivePerson':
          archive.push(personId);
          break;
        case 'send': {
          const entry = sends.get(effect.stepId) ?? { emailId: effect.emailId, sends: [] };
          entry.sends.push({ runId, seq: seqOf(effect.key), personId });
          sends.set(effect.stepId, entry);
          break;
        }
        case 'notify':
          notifications.push({
            key: effect.key,
            personId,
            to: effect.to,
            subject: effect.subject,
            body: effect.body,
          });
          break;
        case 'webhook':
          webhooks.push({ key: effect.key, stepId: effect.stepId, runId, personId, url: effect.url });
          break;
        case 'slack':
          slackMessages.push({ key: effect.key, stepId: effect.stepId, personId, text: effect.text });
          break;
        default: {
          const unknown: never = effect;
          throw new Error(`Unhandled effect ${JSON.stringify(unknown)}`);
        }
      }
    }
  }

  for (const [tag, people] of addTags) await addTagTo(db, accountId, tag, people);
  for (const [tag, people] of removeTags) await removeTagFrom(db, accountId, tag, people);
  for (const { field, value, people } of fields.values())
    await changeField(db, accountId, field, value, people);
  for (const [change, people] of scores) await changeLeadScore(db, accountId, change, people);
  // Sends are queued before archiving: a flow that emails then archives someone still sends the email.
  for (const [stepId, { emailId, sends: rows }] of sends) {
    const email = emails.get(emailId);
    if (!email) continue;
    if ((await queueFlowDeliveries(db, accountId, stepId, email, rows)) > 0) sendSteps.add(stepId);
  }
  if (archive.length) await archivePeople(db, accountId, archive);

  if (notifications.length || webhooks.length) {
    const people = await peopleData(db, accountId, [
      ...new Set([...notifications.map((n) => n.personId), ...webhooks.map((w) => w.personId)]),
    ]);
    if (notifications.length) {
      const team = await teamAddresses(db, accountId, [...new Set(notifications.flatMap((n) => n.to))]);
      for (const n of notifications) {
        const person = people.get(n.personId) as Record<string, unknown> | undefined;
        const who = person
          ? `${[person.firstName, person.lastName].filter(Boolean).join(' ') || 'Someone'} <${String(person.email ?? 'no address')}>`
          : `Person ${n.personId}`;
        for (const to of n.to.filter((address) => team.has(address.toLowerCase()))) {
          await queueMail(db, services.config, {
            to,
            subject: fillPersonTags(n.subject, person).slice(0, 300),
            text: `${fillPersonTags(n.body, person)}\n\nPerson: ${who}\nFlow: ${flowId}\n`,
            accountId,
            idempotencyKey: `flow-notify:${accountId}:${n.key}:${to.toLowerCase()}`,
          });
        }
      }
    }
    if (webhooks.length) {
      const calls: WebhookCall[] = webhooks.map((w) => {
        const person = people.get(w.personId);
        return {
          key: w.key,
          flowId,
          stepId: w.stepId,
          runId: w.runId,
          personId: w.personId,
          url: w.url,
          payload: {
            event: 'flow.step',
            flowId,
            stepId: w.stepId,
            runId: w.runId,
            idempotencyKey: w.key,
            person: person
              ? {
                  id: person.id,
                  email: person.email,
                  firstName: person.firstName,
                  lastName: person.lastName,
                  tags: person.tags,
                  fields: person.fields,
                }
              : { id: w.personId },
          },
        };
      });
      await storeWebhookCalls(db, accountId, calls);
      await enqueueJob(
        db,
        'flow-webhook',
        { accountId },
        { jobKey: `flow-webhook:${accountId}`, soonest: true },
      );
    }
  }
  if (slackMessages.length) {
    // Slack steps (issue 20): an outbox row per (run, seq), posted by the slack-send job after commit.
    const people = await peopleData(db, accountId, [...new Set(slackMessages.map((m) => m.personId))]);
    const rows = slackMessages.map((m) => ({
      key: `flow:${m.key}`,
      source: 'flow' as const,
      flowId,
      stepId: m.stepId,
      text: fillPersonTags(m.text, people.get(m.personId) as Record<string, unknown> | undefined),
    }));
    await queueSlackMessage(db, accountId, ...rows);
  }
  return sendSteps;
}
