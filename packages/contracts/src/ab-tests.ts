import { z } from 'zod';
import { entityBody } from './entity-body.ts';

/**
 * A/B tests of broadcasts (issue 17): 2–4 variants of the subject and/or the email go to a test share of the
 * audience; after a wait the variant with the better open or click rate goes to everyone else.
 */
export const abTestLimits = {
  minVariants: 2,
  maxVariants: 4,
  minTestShare: 5,
  maxTestShare: 50,
  minWaitHours: 1,
  maxWaitHours: 72,
  maxVariantNameLength: 40,
  maxSubjectLength: 500,
} as const;

export const abTestMetrics = ['opens', 'clicks'] as const;
export type AbTestMetric = (typeof abTestMetrics)[number];
export const abTestMetricLabels: Record<AbTestMetric, string> = { opens: 'Opens', clicks: 'Clicks' };

/** Default variant names, by position. */
export const abTestVariantNames = ['A', 'B', 'C', 'D'] as const;

export const abTestMessages = {
  tooFewVariants: `An A/B test needs at least ${abTestLimits.minVariants} variants.`,
  tooManyVariants: `An A/B test has at most ${abTestLimits.maxVariants} variants.`,
  testShare: `The test share must be a whole percentage from ${abTestLimits.minTestShare} to ${abTestLimits.maxTestShare}.`,
  waitHours: `The wait must be a whole number of hours from ${abTestLimits.minWaitHours} to ${abTestLimits.maxWaitHours}.`,
  metric: 'The winner is chosen by opens or clicks.',
  variantName: `A variant name has 1 to ${abTestLimits.maxVariantNameLength} characters.`,
  subjectEmpty: 'A variant subject cannot be empty: leave it out to use the email’s own subject.',
  subjectTooLong: `A variant subject has at most ${abTestLimits.maxSubjectLength} characters.`,
  duplicateNames: 'Each variant needs its own name.',
  invalid: 'The A/B test of this broadcast is not valid. Set it up again.',
  recipientTime:
    "An A/B test goes out at one time for everyone: send it now or at a fixed time, not in each recipient's time zone.",
  sameAsAnother: (name: string) =>
    `Variant ${name} sends the same subject and email as another variant. Give it its own subject or email.`,
  variantEmailGone: (name: string) => `The email of variant ${name} no longer exists. Choose another one.`,
  tooFewRecipients: (variants: number, recipients: number) =>
    `An A/B test of ${variants} variants needs at least ${variants} recipients; this audience has ${recipients}.`,
  noData: (metric: AbTestMetric, winner: string) =>
    `No ${metric} were recorded during the test; variant ${winner} was sent.`,
  tie: (metric: AbTestMetric, names: string, winner: string, rate: string) =>
    `Variants ${names} tied on ${metric} (${rate} each); variant ${winner}, the first of them, was sent.`,
  won: (metric: AbTestMetric, winner: string, rate: string, runnerUp: string, runnerUpRate: string) =>
    `Variant ${winner} won with a ${rate} ${metric === 'opens' ? 'open' : 'click'} rate against ${runnerUpRate} for variant ${runnerUp}.`,
} as const;

const variantName = z
  .string()
  .trim()
  .min(1, abTestMessages.variantName)
  .max(abTestLimits.maxVariantNameLength, abTestMessages.variantName);
const variantSubject = z
  .string()
  .trim()
  .min(1, abTestMessages.subjectEmpty)
  .max(abTestLimits.maxSubjectLength, abTestMessages.subjectTooLong);

/** One variant: its own subject and/or email; what it leaves out comes from the broadcast's email. */
export const AbTestVariantInput = z.strictObject({
  /** 'A'..'D' by position when left out. */
  name: variantName.optional(),
  subject: variantSubject.nullable().optional(),
  emailId: z.number().int().positive().nullable().optional(),
});

export const AbTestVariant = z.object({
  name: z.string(),
  subject: z.string().nullable(),
  emailId: z.number().int().nullable(),
});
export type AbTestVariant = z.infer<typeof AbTestVariant>;

const testShare = z
  .number({ error: abTestMessages.testShare })
  .int(abTestMessages.testShare)
  .min(abTestLimits.minTestShare, abTestMessages.testShare)
  .max(abTestLimits.maxTestShare, abTestMessages.testShare);
const waitHours = z
  .number({ error: abTestMessages.waitHours })
  .int(abTestMessages.waitHours)
  .min(abTestLimits.minWaitHours, abTestMessages.waitHours)
  .max(abTestLimits.maxWaitHours, abTestMessages.waitHours);

/**
 * What a user sets (PATCH or POST /v1/broadcasts: `abTest`). The decision fields the entity reports are accepted and
 * ignored, so the item goes back as it came. Variant names default to A–D; two variants may not send the same thing.
 */
const abTestFields = entityBody(
  {
    variants: z
      .array(AbTestVariantInput, { error: abTestMessages.tooFewVariants })
      .min(abTestLimits.minVariants, abTestMessages.tooFewVariants)
      .max(abTestLimits.maxVariants, abTestMessages.tooManyVariants),
    testShare,
    metric: z.enum(abTestMetrics, { error: abTestMessages.metric }),
    waitHours,
  },
  ['decidesAt', 'winner', 'decidedAt', 'explanation'],
);
export const AbTestInput = abTestFields.transform((input, ctx) => {
  const variants: AbTestVariant[] = input.variants.map((variant, index) => ({
    name: variant.name ?? abTestVariantNames[index]!,
    subject: variant.subject ?? null,
    emailId: variant.emailId ?? null,
  }));
  if (new Set(variants.map((v) => v.name.toLowerCase())).size !== variants.length) {
    ctx.addIssue({ code: 'custom', message: abTestMessages.duplicateNames, path: ['variants'] });
    return z.NEVER;
  }
  const seen = new Set<string>();
  for (const [index, variant] of variants.entries()) {
    const key = JSON.stringify([variant.subject, variant.emailId]);
    if (seen.has(key)) {
      ctx.addIssue({
        code: 'custom',
        message: abTestMessages.sameAsAnother(variant.name),
        path: ['variants', index],
      });
      return z.NEVER;
    }
    seen.add(key);
  }
  return { variants, testShare: input.testShare, metric: input.metric, waitHours: input.waitHours };
});
export type AbTestInput = z.input<typeof AbTestInput>;
export type AbTestSettings = z.output<typeof AbTestInput>;

/** A broadcast's A/B test as stored and reported: the settings, and once decided the winner's index and why. */
export const AbTest = z.object({
  variants: z.array(AbTestVariant),
  testShare: z.number().int(),
  metric: z.enum(abTestMetrics),
  waitHours: z.number().int(),
  /** When the winner is chosen: set when the test starts (its start plus the wait). */
  decidesAt: z.string().nullable(),
  /** Index into variants of the one sent to the rest; null until decided. */
  winner: z.number().int().nullable(),
  decidedAt: z.string().nullable(),
  explanation: z.string().nullable(),
});
export type AbTest = z.infer<typeof AbTest>;

/** Live figures of one variant: queued and sent from the delivery rows, opens and clicks (unique people) from events. */
export const AbTestVariantResult = z.object({
  variant: z.number().int(),
  name: z.string(),
  queued: z.number().int(),
  sent: z.number().int(),
  opens: z.number().int(),
  clicks: z.number().int(),
});
export type AbTestVariantResult = z.infer<typeof AbTestVariantResult>;

/** The test's figures per variant (POST or GET /v1/broadcasts/{id}/status, for an A/B test once started). */
export const AbTestResults = z.object({ variants: z.array(AbTestVariantResult) });
export type AbTestResults = z.infer<typeof AbTestResults>;

/**
 * How a test splits `recipients` people: the test share (rounded, at least one person per variant, never more
 * than there are) divided as evenly as possible, the first variants taking one more when it does not divide; the
 * rest wait for the winner.
 */
export function abTestSplit(
  recipients: number,
  testShare: number,
  variantCount: number,
): { variants: number[]; test: number; rest: number } {
  const n = Math.max(0, Math.floor(recipients));
  const test = Math.min(n, Math.max(variantCount, Math.floor((n * testShare + 50) / 100)));
  const base = Math.floor(test / variantCount);
  const variants = Array.from(
    { length: variantCount },
    (_, index) => base + (index < test % variantCount ? 1 : 0),
  );
  return { variants, test, rest: n - test };
}

/** Which variant (1-based) the person at `rank` (1-based, in the test's random order) gets, or 0 for the rest. */
export function abTestVariantAt(rank: number, sizes: number[]): number {
  let upTo = 0;
  for (const [index, size] of sizes.entries()) {
    upTo += size;
    if (rank <= upTo) return index + 1;
  }
  return 0;
}
