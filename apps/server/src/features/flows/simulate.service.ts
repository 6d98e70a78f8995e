import {
  flowMessages,
  simulateLimits,
  simulateMessages,
  stepTypeOf,
  type SimulateBody,
  type SimulateResult,
} from '@herald/contracts';
import { isValidTimeZone, simulateRun, type Effect } from '@herald/flow-engine';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { compileOrThrow, previewLinks, renderContext, renderFor } from '../emails/email-rendering.ts';
import { loadCompileContext } from '../segments/segment-context.ts';
import {
  addTagTo,
  archivePeople,
  changeField,
  changeLeadScore,
  removeTagFrom,
} from './flow-effects.queries.ts';
import { loadFlowDefinition } from './flow-runs.queries.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { readGoal } from './goals.queries.ts';
import {
  answerFilter,
  eventFeed,
  goalCheck,
  simulatedPerson,
  type FilterVerdict,
} from './simulate.person.ts';
import { describePath, type RenderedSend } from './simulate.path.ts';

type Body = z.infer<typeof SimulateBody>;

const dayMs = 86_400_000;

/** The simulated clock's window: from `start` (now) to `until` (90 days later), at most 366 days. */
function clockOf(body: Body): { start: Date; until: Date } {
  const start = body.start ? new Date(body.start) : new Date();
  if (start.getTime() < Date.UTC(2000, 0, 1) || start.getTime() > Date.UTC(2100, 0, 1))
    throw badRequest(simulateMessages.startOutOfRange);
  const until = body.until
    ? new Date(body.until)
    : new Date(start.getTime() + simulateLimits.defaultDays * dayMs);
  if (until.getTime() <= start.getTime()) throw badRequest(simulateMessages.untilBeforeStart);
  if (until.getTime() - start.getTime() > simulateLimits.maxDays * dayMs)
    throw badRequest(simulateMessages.horizonTooLong);
  return { start, until };
}

/**
 * POST /v1/integrations/{id}/simulate: the flow run for one person on a simulated clock, with the engine's own
 * `advance`. Everything happens under a savepoint of the request's transaction that is always rolled back: a
 * made-up person and their events are inserted there, tag and field steps change the person there (later filters
 * see it), filters and the goal are answered by the runtime's SQL there, and emails are rendered as the pipeline
 * renders them. Nothing is sent and nothing stays written.
 */
export async function simulateFlow(
  db: Database,
  services: Services,
  session: Session,
  flowId: number,
  body: Body,
): Promise<SimulateResult> {
  const { accountId } = session;
  const row = await flowOrThrow(db, accountId, flowId);
  const flow = await loadFlowDefinition(db, accountId, flowId, row.version);
  const triggers = [...flow.steps.values()]
    .filter((s) => stepTypeOf(s.operationKey) === 'trigger')
    .sort((a, b) => a.id - b.id);
  if (!triggers.length) throw badRequest(simulateMessages.noTrigger);
  const trigger =
    body.triggerStepId === undefined ? triggers[0]! : triggers.find((t) => t.id === body.triggerStepId);
  if (!trigger) throw badRequest(simulateMessages.notATrigger);
  const { start, until } = clockOf(body);
  const account = await db
    .selectFrom('accounts')
    .select('timezone')
    .where('id', '=', accountId)
    .executeTakeFirst();
  const accountZone = account?.timezone && isValidTimeZone(account.timezone) ? account.timezone : 'UTC';

  await sql`savepoint herald_simulation`.execute(db);
  try {
    return await simulateInside(db, services, session, {
      flow,
      triggerId: trigger.id,
      start,
      until,
      accountZone,
      body,
    });
  } catch (error) {
    // A real person's row held by a writer for longer than the lock timeout.
    if ((error as { code?: string }).code === '55P03') throw conflict(simulateMessages.personBusy);
    throw error;
  } finally {
    await sql`rollback to savepoint herald_simulation`.execute(db);
    await sql`release savepoint herald_simulation`.execute(db);
  }
}

interface Inside {
  flow: Awaited<ReturnType<typeof loadFlowDefinition>>;
  triggerId: number;
  start: Date;
  until: Date;
  accountZone: string;
  body: Body;
}

async function simulateInside(
  db: Database,
  services: Services,
  session: Session,
  input: Inside,
): Promise<SimulateResult> {
  const { accountId } = session;
  const { flow, start, until, body } = input;
  // A tag or field step of a real person changes their row inside the savepoint: wait for a writer at most 2 s.
  await sql`set local lock_timeout = '2s'`.execute(db);
  const person = await simulatedPerson(db, accountId, body.person);
  // On the ClickHouse store a real person's events are copied in, so filters and the goal judge their history too.
  if (!person.synthetic) await services.events.copyPersonForTestRun(db, accountId, person.id);
  const timeZone = person.zone ?? input.accountZone;
  const feed = eventFeed(db, accountId, person.id, body.events);
  const { ctx: base } = await loadCompileContext(db, accountId, start);
  const goal = goalCheck(db, accountId, person.id, await readGoal(db, accountId, flow.id), base);
  const verdicts = new Map<number, FilterVerdict[]>();
  const sends = new Map<string, RenderedSend>();
  const compiled = new Map<number, ReturnType<typeof compileOrThrow> & { name: string }>();

  const render = async (effect: Extract<Effect, { kind: 'send' }>, at: Date): Promise<string | null> => {
    let email = compiled.get(effect.emailId);
    if (!email) {
      const row = await db
        .selectFrom('emails')
        .select(['name', 'subject', 'preheader', 'html', 'fromEmail'])
        .where('accountId', '=', accountId)
        .where('id', '=', effect.emailId)
        .executeTakeFirst();
      if (!row) return flowMessages.emailGone(effect.emailId);
      try {
        email = Object.assign(compileOrThrow(row), { name: row.name });
      } catch (error) {
        if (error instanceof AppError) return error.message;
        throw error;
      }
      compiled.set(effect.emailId, email);
    }
    const context = await renderContext(db, session, person.id);
    const host = new URL(services.config.publicUrl).hostname || 'localhost';
    try {
      const rendered = await renderFor(
        email,
        context,
        { messageId: `<test-run@${host}>`, ...previewLinks(services) },
        email.name,
      );
      sends.set(effect.key, {
        stepId: effect.stepId,
        emailId: effect.emailId,
        at: at.toISOString(),
        subject: rendered.subject,
        html: rendered.html,
      });
      return null;
    } catch (error) {
      if (error instanceof AppError) return error.message;
      throw error;
    }
  };

  const outcome = await simulateRun(
    flow,
    {
      startStepId: input.triggerId,
      start,
      until,
      timeZone,
      maxSteps: simulateLimits.maxSteps,
      moments: feed.moments,
      runId: person.id,
      personId: person.id,
    },
    {
      answer: async (stepId, at) => {
        await feed.until(at);
        const result = await answerFilter(db, accountId, person.id, flow.steps.get(stepId)!, {
          ...base,
          now: at,
        });
        if ('problem' in result) return result;
        verdicts.set(stepId, [...(verdicts.get(stepId) ?? []), result]);
        return result.answer;
      },
      apply: async (effects, at) => {
        await feed.until(at);
        for (const effect of effects) {
          const seq = Number(effect.key.slice(effect.key.indexOf(':') + 1));
          if (effect.kind === 'addTag') await addTagTo(db, accountId, effect.tag, [person.id]);
          else if (effect.kind === 'removeTag') await removeTagFrom(db, accountId, effect.tag, [person.id]);
          else if (effect.kind === 'changeField')
            await changeField(db, accountId, effect.field, effect.value, [person.id]);
          else if (effect.kind === 'leadScore')
            await changeLeadScore(db, accountId, effect.change, [person.id]);
          else if (effect.kind === 'archivePerson') await archivePeople(db, accountId, [person.id]);
          else if (effect.kind === 'send') {
            const problem = await render(effect, at);
            if (problem) return { seq, problem };
          }
        }
      },
      ...(goal ? { reached: async (at: Date) => (await feed.until(at), goal(at)) } : {}),
    },
  );

  const path = describePath(outcome.steps, { flow, timeZone, verdicts, sends });
  return {
    path,
    emails: outcome.steps.flatMap((s) =>
      s.effects
        .filter((e) => e.kind === 'send')
        .map((e) => sends.get(e.key))
        .filter((e): e is RenderedSend => e !== undefined),
    ),
    ended: outcome.ended,
    reason: outcome.ended === 'stepLimit' ? simulateMessages.stepLimit : outcome.reason,
    timeZone,
    start: start.toISOString(),
    until: until.toISOString(),
    convertedAt: outcome.convertedAt?.toISOString() ?? null,
    wakeAt: outcome.wakeAt?.toISOString() ?? null,
    person: {
      id: person.synthetic ? null : person.id,
      email: person.synthetic ? null : person.email,
      synthetic: person.synthetic,
    },
  };
}
