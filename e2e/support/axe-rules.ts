import { createRequire } from 'node:module';

/** axe-core as @axe-core/playwright loads it: its source, and the metadata of its rules. */
export const axeCore = createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright'))(
  'axe-core',
) as {
  source: string;
  _audit?: {
    rules: {
      id: string;
      impact?: string;
      any: { id: string }[];
      all: { id: string }[];
      none: { id: string }[];
    }[];
    data: { checks: Record<string, { impact?: string } | undefined> };
  };
};
const impactRank: Record<string, number> = { minor: 1, moderate: 2, serious: 3, critical: 4 };

/**
 * The rules that can only ever report a minor or moderate finding (`region`, `heading-order`, the landmark rules):
 * a finding's impact is the highest of its rule's and failed checks' impacts, so these can never fail a journey, and
 * running them cost about a fifth of each axe run. Read from axe's own rule metadata; none are left out if it moves.
 */
function rulesBelowSerious(): string[] {
  const audit = axeCore._audit;
  if (!audit) return [];
  const rank = (impact: string | undefined) => impactRank[impact ?? ''] ?? 0;
  return audit.rules
    .filter((rule) => {
      const checks = [...rule.any, ...rule.all, ...rule.none];
      const highest = Math.max(
        rank(rule.impact),
        ...checks.map((check) => rank(audit.data.checks[check.id]?.impact)),
      );
      return highest > 0 && highest < impactRank.serious!;
    })
    .map((rule) => rule.id);
}

/**
 * axe's defaults plus label-content-name-mismatch (WCAG 2.5.3, "label in name"), which axe still tags
 * experimental and leaves off: a control whose accessible name drops its visible text cannot be spoken to. The rules
 * that cannot report a failing impact are off.
 */
export const axeOptions = {
  resultTypes: ['violations' as const],
  rules: {
    ...Object.fromEntries(rulesBelowSerious().map((id) => [id, { enabled: false }])),
    'label-content-name-mismatch': { enabled: true },
  },
};
