import { abTestMessages, sendingMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { decideWinner } from '../src/features/broadcasts/ab-tests.service.ts';
import { abTest, draft, rowsOf, setup, useAbTestsContext } from './ab-tests-fixtures.ts';
import { newEmail } from './email-helpers.ts';

// A/B test settings through the API, the refusals of a send, and how the winner is decided (sending a test and its
// rest is ab-tests-sending.test.ts).
useAbTestsContext();

describe('A/B tests: the API', () => {
  it('stores a test on a draft (names A–D by default), refuses bad settings with a 400 and no change, and clears it', async () => {
    const { client, emailId, otherEmailId } = await setup(0);
    const broadcast = await draft(client, { name: 'Test me', emailId, abTest: abTest() });
    expect(broadcast.abTest).toEqual({
      variants: [
        { name: 'A', subject: 'Subject A', emailId: null },
        { name: 'B', subject: 'Subject B', emailId: null },
      ],
      testShare: 50,
      metric: 'opens',
      waitHours: 4,
      decidesAt: null,
      winner: null,
      decidedAt: null,
      explanation: null,
    });
    const refusals: [unknown, string][] = [
      [abTest({ variants: [{ subject: 'Only' }] }), abTestMessages.tooFewVariants],
      [
        abTest({ variants: ['1', '2', '3', '4', '5'].map((subject) => ({ subject })) }),
        abTestMessages.tooManyVariants,
      ],
      [abTest({ testShare: 60 }), abTestMessages.testShare],
      [abTest({ testShare: 2.5 }), abTestMessages.testShare],
      [abTest({ waitHours: 0 }), abTestMessages.waitHours],
      [abTest({ waitHours: 100 }), abTestMessages.waitHours],
      [abTest({ metric: 'revenue' }), abTestMessages.metric],
      [abTest({ variants: [{ subject: 'Same' }, { subject: 'Same' }] }), abTestMessages.sameAsAnother('B')],
      [
        abTest({
          variants: [
            { name: 'Bold', subject: 'x' },
            { name: 'bold', subject: 'y' },
          ],
        }),
        abTestMessages.duplicateNames,
      ],
      [abTest({ variants: [{ subject: '' }, { subject: 'y' }] }), abTestMessages.subjectEmpty],
      [abTest({ variants: [{ subject: 'x' }, { emailId: 999_999 }] }), abTestMessages.variantEmailGone('B')],
      [abTest({ seed: 4 }), 'Unrecognized key: "seed"'],
    ];
    for (const [body, message] of refusals) {
      const res = await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: body });
      expect(res.status, message).toBe(400);
      expect(res.body.message).toContain(message);
    }
    expect((await client.post('/v1/broadcasts', { abTest: abTest({ testShare: 0 }) })).status).toBe(400);
    expect((await client.get(`/v1/broadcasts/${broadcast.id}`)).body.item.abTest.testShare).toBe(50);

    const changed = await client.patch(`/v1/broadcasts/${broadcast.id}`, {
      abTest: abTest({
        variants: [{ name: 'Plain' }, { name: 'Other', emailId: otherEmailId, subject: 'Look' }],
        metric: 'clicks',
        testShare: 10,
        waitHours: 72,
      }),
    });
    expect(changed.status).toBe(200);
    expect(changed.body.item.abTest).toMatchObject({
      variants: [
        { name: 'Plain', subject: null, emailId: null },
        { name: 'Other', subject: 'Look', emailId: otherEmailId },
      ],
      metric: 'clicks',
      testShare: 10,
      waitHours: 72,
    });
    // The item as it came back is a valid body (the decision fields are ignored).
    expect((await client.patch(`/v1/broadcasts/${broadcast.id}`, changed.body.item)).status).toBe(200);
    expect(
      (await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: null })).body.item.abTest,
    ).toBeNull();

    // Another account's email is not there for this one.
    const other = await setup(0);
    const foreign = await client.patch(`/v1/broadcasts/${broadcast.id}`, {
      abTest: abTest({ variants: [{ subject: 'x' }, { emailId: other.emailId }] }),
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(abTestMessages.variantEmailGone('B'));
    expect((await other.client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: abTest() })).status).toBe(
      404,
    );
  });

  it('refuses to send a test with too few recipients or a variant email from an unverified sender; keeps it a draft', async () => {
    const { client, accountId, emailId, persons } = await setup(2);
    const three = await draft(client, {
      emailId,
      abTest: abTest({ variants: [{ subject: '1' }, { subject: '2' }, { subject: '3' }] }),
    });
    const few = await client.post(`/v1/broadcasts/${three.id}/send`);
    expect(few.status).toBe(400);
    expect(few.body.message).toBe(abTestMessages.tooFewRecipients(3, 2));
    const zoned = await draft(client, {
      emailId,
      sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      time: { type: 'recipient' },
      abTest: abTest(),
    });
    const local = await client.post(`/v1/broadcasts/${zoned.id}/send`);
    expect(local.status).toBe(400);
    expect(local.body.message).toBe(abTestMessages.recipientTime);

    const stranger = await client.post(
      '/v1/emails',
      newEmail({ fromEmail: 'someone@unverified.example.com' }),
    );
    const unverified = await draft(client, {
      emailId,
      abTest: abTest({ variants: [{ subject: 'x' }, { emailId: stranger.body.email.id }] }),
    });
    const refused = await client.post(`/v1/broadcasts/${unverified.id}/send`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(sendingMessages.notVerified('someone@unverified.example.com'));
    expect((await client.get(`/v1/broadcasts/${unverified.id}`)).body.item.status).toBe('draft');
    expect(await rowsOf(accountId, unverified.id)).toEqual([]);
    expect(persons).toHaveLength(2);
  });
});
describe('A/B tests: the decision', () => {
  const test = (metric: 'opens' | 'clicks') => ({
    variants: [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
    metric,
  });
  const figures = (...rows: [number, number, number][]) =>
    rows.map(([sent, opens, clicks]) => ({ sent, opens, clicks }));
  it('no data: the first variant, said so', () => {
    expect(decideWinner(test('clicks'), figures([10, 3, 0], [10, 5, 0], [10, 0, 0]))).toEqual({
      winner: 0,
      explanation: abTestMessages.noData('clicks', 'A'),
    });
  });
  it('a tie: the first of the tied, naming them', () => {
    expect(decideWinner(test('opens'), figures([10, 1, 0], [10, 4, 0], [10, 4, 0]))).toEqual({
      winner: 1,
      explanation: abTestMessages.tie('opens', 'B and C', 'B', '40.0%'),
    });
    // Equal rates from different sizes tie too.
    expect(decideWinner(test('opens'), figures([4, 2, 0], [2, 1, 0], [3, 0, 0])).winner).toBe(0);
    expect(decideWinner(test('opens'), figures([4, 2, 0], [2, 1, 0], [4, 2, 0])).explanation).toBe(
      abTestMessages.tie('opens', 'A, B and C', 'A', '50.0%'),
    );
  });
  it('the best rate wins, not the biggest count', () => {
    expect(decideWinner(test('clicks'), figures([10, 0, 3], [4, 0, 2], [10, 0, 1]))).toEqual({
      winner: 1,
      explanation: abTestMessages.won('clicks', 'B', '50.0%', 'A', '30.0%'),
    });
  });
});
