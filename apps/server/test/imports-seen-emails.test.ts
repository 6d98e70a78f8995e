import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeenEmails } from '../src/features/imports/seen-emails.ts';

const addAll = (emails: string[]) => {
  const seen = new SeenEmails(4);
  for (const email of emails) seen.add(email);
  return seen.repeated;
};

describe('seen emails', () => {
  it('notices any email added twice, and no repeat among different emails', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.emailAddress(), { minLength: 1, maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        (emails, from, to) => {
          expect(addAll(emails)).toBe(false);
          // The same list with one of its emails again at any place.
          const again = [...emails];
          again.splice(to % (again.length + 1), 0, emails[from % emails.length]!);
          expect(addAll(again)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps every email while it grows past its first size', () => {
    const seen = new SeenEmails(4);
    for (let i = 0; i < 200_000; i += 1) seen.add(`person-${i}@example.com`);
    expect(seen.repeated).toBe(false);
    seen.add('person-123456@example.com');
    expect(seen.repeated).toBe(true);
  });

  it("tells whether a batch repeats an email of its own or one of an earlier batch's", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.constantFrom('a@x.io', 'b@x.io', 'c@x.io', 'd@x.io', 'e@x.io'), { maxLength: 4 }),
          { minLength: 1, maxLength: 6 },
        ),
        (batches) => {
          const seen = new SeenEmails(4);
          const before = new Set<string>();
          batches.forEach((emails, batch) => {
            seen.startBatch(batch);
            const mine = new Set<string>();
            let inBatch = false;
            let earlier = false;
            for (const email of emails) {
              seen.add(email);
              if (before.has(email)) earlier = true;
              else if (mine.has(email)) inBatch = true;
              mine.add(email);
            }
            expect({ inBatch: seen.repeatedInBatch, earlier: seen.repeatedFromEarlier }).toEqual({
              inBatch,
              earlier,
            });
            for (const email of mine) before.add(email);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('tells apart emails that differ only in length or order', () => {
    expect(addAll(['ab@x.io', 'ba@x.io', 'ab@x.iox', 'a@bx.io', ''])).toBe(false);
  });
});
