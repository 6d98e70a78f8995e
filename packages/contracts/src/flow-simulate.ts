import { z } from 'zod';
import { operationKeys } from './flows.ts';
import { ConditionVerdict } from './segments.ts';

/**
 * POST /v1/integrations/{id}/simulate: a dry run of the flow for one person, real (by email) or made up (fields,
 * tags, time zone and events), with a simulated clock. Nothing is sent and nothing is written.
 */
export const simulateLimits = {
  maxEvents: 500,
  defaultDays: 90,
  maxDays: 366,
  /** Steps one simulation executes at most (a loop through waits over a long horizon stops there). */
  maxSteps: 500,
  maxTags: 100,
  maxFields: 100,
} as const;

export const simulateMessages = {
  tooManyEvents: `A simulation takes at most ${simulateLimits.maxEvents} events.`,
  personNotFound: 'No person with this email in this account.',
  badTimeZone: 'Choose a time zone such as Europe/Paris.',
  noTrigger: 'Add a trigger to this flow before testing it.',
  notATrigger: 'Start the test run at one of the flow’s triggers.',
  untilBeforeStart: 'The end of the test run must come after its start.',
  horizonTooLong: `A test run covers at most ${simulateLimits.maxDays} days.`,
  eventBeforeStart: 'Events happen at or after the start of the test run.',
  stepLimit: `The test run stopped after ${simulateLimits.maxSteps} steps.`,
  fieldValue: 'A field value is text, a number, true or false.',
  startOutOfRange: 'Start the test run between the years 2000 and 2100.',
  personBusy: 'This person is being changed right now. Try the test run again in a moment.',
  emailTaken: 'A person with this email exists: test with their email instead, or leave the email out.',
} as const;

const isoTime = z.iso.datetime({
  offset: true,
  message: 'Enter a date and time such as 2026-03-01T09:00:00Z.',
});
const FieldValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()], {
  message: simulateMessages.fieldValue,
});

export const SimulatedEvent = z.strictObject({
  name: z.string().trim().min(1, 'Name the event.').max(200),
  at: isoTime,
  properties: z.record(z.string().max(100), z.unknown()).default({}),
});

export const SimulatePerson = z.union([
  z.strictObject({ email: z.string().trim().min(1).max(320) }),
  z.strictObject({
    fields: z
      .record(z.string().max(100), FieldValue)
      .refine(
        (f) => Object.keys(f).length <= simulateLimits.maxFields,
        `At most ${simulateLimits.maxFields} fields.`,
      )
      .default({}),
    tags: z.array(z.string().trim().min(1).max(100)).max(simulateLimits.maxTags).default([]),
    timezone: z.string().trim().max(100).optional(),
  }),
]);

export const SimulateBody = z.strictObject({
  person: SimulatePerson,
  events: z.array(SimulatedEvent).max(simulateLimits.maxEvents, simulateMessages.tooManyEvents).default([]),
  /** When the person enters the flow; now when absent. */
  start: isoTime.optional(),
  /** Where the simulated clock stops; `start` plus 90 days when absent, at most 366 days after it. */
  until: isoTime.optional(),
  /** The trigger the person enters at; the flow's first trigger when absent. */
  triggerStepId: z.number().int().positive().optional(),
});
export type SimulateBody = z.input<typeof SimulateBody>;

export const simulateEndings = ['done', 'converted', 'exited', 'failed', 'horizon', 'stepLimit'] as const;
export type SimulateEnding = (typeof simulateEndings)[number];

export const SimulatedStep = z.object({
  /** 1 for the first executed step, then one more per step. */
  seq: z.number().int(),
  stepId: z.number().int(),
  operationKey: z.enum(operationKeys),
  /** The step's label ('Send email'). */
  name: z.string(),
  /** When the step executed (simulated clock), and that moment on the person's clock. */
  at: z.string(),
  localAt: z.string(),
  /** What it did: 'entered', 'yes' / 'no' (filters), the variant name (A/B), 'wait', 'send', 'would add tag' … */
  outcome: z.string(),
  /** Why, in words: the filter's conditions and the person's values, the wait's wake time, what an action would do. */
  why: z.string(),
  /** Filters: each condition's verdict, in the tree's shape. */
  verdicts: z.array(ConditionVerdict).optional(),
  /** Waits: when the person goes on, and that moment on the person's clock. */
  wakeAt: z.string().optional(),
  wakeLocal: z.string().optional(),
});
export type SimulatedStep = z.infer<typeof SimulatedStep>;

export const SimulatedEmail = z.object({
  stepId: z.number().int(),
  emailId: z.number().int(),
  at: z.string(),
  subject: z.string(),
  html: z.string(),
});

export const SimulateResult = z.object({
  path: z.array(SimulatedStep),
  emails: z.array(SimulatedEmail),
  ended: z.enum(simulateEndings),
  /** Why the run ended early (failed, exited, stopped at the step limit); null otherwise. */
  reason: z.string().nullable(),
  /** The person's time zone the clocks are read in. */
  timeZone: z.string(),
  start: z.string(),
  until: z.string(),
  /** When the goal was reached (the run then ends), else null. */
  convertedAt: z.string().nullable(),
  /** A run still waiting at the horizon wakes then. */
  wakeAt: z.string().nullable(),
  person: z.object({ id: z.number().int().nullable(), email: z.string().nullable(), synthetic: z.boolean() }),
});
export type SimulateResult = z.infer<typeof SimulateResult>;
