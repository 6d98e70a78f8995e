import {
  MarketplaceCode,
  lookupPlan,
  marketplacePlans,
  normalizeMarketplaceCode,
  type Plan,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { hashToken } from '../../lib/tokens.ts';
import { insertCodes, listCodes, type NewMarketplaceCode } from './marketplace.queries.ts';

/** Every code grants a band of this list (docs/billing.md). */
export const marketplacePlanName = 'marketplace-growth-monthly-v1';

/** How a code is found: the SHA-256 of its normalised form (the code itself is never stored). */
export function codeHashOf(code: string): string {
  return hashToken(normalizeMarketplaceCode(code));
}

/** What the operator's list and the account's redemptions show of a code: its last four characters. */
export function codeHintOf(code: string): string {
  const normalized = normalizeMarketplaceCode(code);
  return `…${normalized.slice(-4)}`;
}

export const marketplaceBands = marketplacePlans.map((plan) => plan.peopleUpperLimit);

/** The marketplace plan of this people upper limit, or a sentence naming the bands there are. */
export function marketplacePlanOf(peopleUpperLimit: number): Plan | string {
  return (
    lookupPlan(marketplacePlanName, peopleUpperLimit) ??
    `No marketplace plan has the people upper limit ${peopleUpperLimit}. The bands are ${marketplaceBands.join(', ')}.`
  );
}

/** Shortest code the operator may load: shorter ones could be guessed despite the attempt limit. */
export const shortestCode = 8;

/** A sentence saying what is wrong with a code the operator loads, or null when it is acceptable. */
export function codeProblemOf(code: string): string | null {
  const parsed = MarketplaceCode.safeParse(code);
  if (!parsed.success) return parsed.error.issues[0]?.message ?? 'Invalid code.';
  if (parsed.data.length < shortestCode)
    return `A code needs at least ${shortestCode} characters, so that it cannot be guessed.`;
  return null;
}

export interface CodeEntry {
  code: string;
  peopleUpperLimit: number;
}

export interface AddCodesResult {
  added: number;
  /** Codes already loaded (earlier, or twice in this batch): left as they were. */
  alreadyKnown: string[];
}

/**
 * Load codes the operator bought from the marketplace. Each entry is checked first; one bad entry adds nothing.
 * Codes already in the table stay as they are (a re-import never frees a redeemed code).
 */
export async function addCodes(db: Database, entries: CodeEntry[]): Promise<AddCodesResult> {
  const problems: string[] = [];
  const rows = new Map<string, NewMarketplaceCode & { code: string }>();
  const alreadyKnown: string[] = [];
  entries.forEach((entry, index) => {
    const codeProblem = codeProblemOf(entry.code);
    const plan = marketplacePlanOf(entry.peopleUpperLimit);
    const where = entries.length > 1 ? `Entry ${index + 1} (${entry.code.trim() || 'empty'}): ` : '';
    if (codeProblem) problems.push(`${where}${codeProblem}`);
    else if (typeof plan === 'string') problems.push(`${where}${plan}`);
    else {
      const codeHash = codeHashOf(entry.code);
      if (rows.has(codeHash)) alreadyKnown.push(normalizeMarketplaceCode(entry.code));
      else
        rows.set(codeHash, {
          code: normalizeMarketplaceCode(entry.code),
          codeHash,
          codeHint: codeHintOf(entry.code),
          planName: plan.name,
          peopleUpperLimit: plan.peopleUpperLimit,
        });
    }
  });
  if (problems.length) throw new CodeEntryError(problems);
  const added = await insertCodes(
    db,
    [...rows.values()].map(({ code: _code, ...row }) => row),
  );
  for (const row of rows.values()) if (!added.has(row.codeHash)) alreadyKnown.push(row.code);
  return { added: added.size, alreadyKnown };
}

/** Entries that cannot be loaded; nothing was written. */
export class CodeEntryError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export interface CodeListing {
  codes: Awaited<ReturnType<typeof listCodes>>;
  byBand: { peopleUpperLimit: number; total: number; redeemed: number }[];
}

/** Every code with its state, and the counts per band. */
export async function describeCodes(db: Database): Promise<CodeListing> {
  const codes = await listCodes(db);
  const bands = new Map<number, { peopleUpperLimit: number; total: number; redeemed: number }>();
  for (const code of codes) {
    const band = bands.get(code.peopleUpperLimit) ?? {
      peopleUpperLimit: code.peopleUpperLimit,
      total: 0,
      redeemed: 0,
    };
    band.total += 1;
    if (code.redeemedAt) band.redeemed += 1;
    bands.set(code.peopleUpperLimit, band);
  }
  return { codes, byBand: [...bands.values()].sort((a, b) => a.peopleUpperLimit - b.peopleUpperLimit) };
}
