import { aiWriterMessages, scopeIds } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { startOpenAiStandin, type OpenAiStandin } from './openai-standin.ts';

let standin: OpenAiStandin;
let ctx: TestContext;
const contexts: TestContext[] = [];

/** A server whose AI writer talks to the stand-in, with the given limits. */
async function serverWithAi(env: Record<string, string> = {}): Promise<TestContext> {
  const created = await createTestContext({
    AI_BASE_URL: standin.baseUrl,
    AI_API_KEY: 'sk-test-key',
    AI_MODEL: 'standin-model',
    ...env,
  });
  contexts.push(created);
  return created;
}

beforeAll(async () => {
  standin = await startOpenAiStandin();
  ctx = await serverWithAi();
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await standin.close();
});
beforeEach(() => {
  standin.mode = 'ok';
});

const brief = {
  emailAbout: 'Our spring sale starts Monday with 30% off',
  companyName: 'Acme Bikes',
  tone: 'playful',
};

describe('drafting with the AI writer', () => {
  it("drafts subject lines: one suggestion per line in the model's order, cleaned of numbering and quotes, sent with the key, model, company and tone", async () => {
    const { client } = await registerUser(ctx.app);
    const before = standin.requests.length;
    const res = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
    expect(res.status).toBe(201);
    const contents = res.body.suggestions.map((s: { content: string }) => s.content);
    expect(contents).toEqual([
      'Our spring sale starts Monday with 30% off',
      'Acme Bikes: Our spring sale starts Monday with 30% off',
      "Don't miss it: Our spring sale starts Monday with 30% off",
      'News from Acme Bikes',
      'A playful note: Our spring sale starts Monday with 30% off',
    ]);
    for (const s of res.body.suggestions)
      expect(s).toMatchObject({
        useCase: 'subjectLine',
        id: expect.any(Number),
        createdAt: expect.any(String),
      });
    const sent = standin.requests[before]!;
    expect(sent.authorization).toBe('Bearer sk-test-key');
    expect(sent.body.model).toBe('standin-model');
    const prompt = sent.body.messages!.map((m) => m.content).join('\n');
    expect(prompt).toContain('Company: Acme Bikes');
    expect(prompt).toContain('Tone: playful');
    expect(prompt).toMatch(/subject lines/);
  });

  it('writes a whole email by default, and an outline, each as one suggestion', async () => {
    const { client } = await registerUser(ctx.app);
    const email = await client.post('/v1/ai-writer', {
      parameters: { emailAbout: 'a new store in Leeds', companyName: 'Acme Bikes' },
    });
    expect(email.status).toBe(201);
    expect(email.body.suggestions).toHaveLength(1);
    expect(email.body.suggestions[0]).toMatchObject({ useCase: 'writeEmail' });
    expect(email.body.suggestions[0].content).toContain('We have news at Acme Bikes: a new store in Leeds.');
    expect(email.body.suggestions[0].content.split('\n\n').length).toBeGreaterThanOrEqual(3);
    expect(standin.requests.at(-1)!.body.messages!.at(-1)!.content).toContain('Tone: friendly and clear');

    const outline = await client.post('/v1/ai-writer', {
      useCase: 'emailOutline',
      parameters: { ...brief, tone: '' },
    });
    expect(outline.status).toBe(201);
    expect(outline.body.suggestions).toHaveLength(1);
    expect(outline.body.suggestions[0].useCase).toBe('emailOutline');
    expect(
      outline.body.suggestions[0].content.split('\n').every((line: string) => line.startsWith('- ')),
    ).toBe(true);
  });

  it('lists the suggestions newest first, and counts the tokens the provider reported', async () => {
    const { client, account } = await registerUser(ctx.app);
    expect((await client.get('/v1/ai-writer')).body).toEqual({ suggestions: [] });
    const first = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
    const second = await client.post('/v1/ai-writer', { useCase: 'emailOutline', parameters: brief });
    const list = await client.get('/v1/ai-writer');
    expect(list.status).toBe(200);
    const ids = list.body.suggestions.map((s: { id: number }) => s.id);
    // The newest answer first; within an answer, the model's own order.
    expect(ids).toEqual(
      [...second.body.suggestions, ...first.body.suggestions].map((s: { id: number }) => s.id),
    );
    expect(first.body.suggestions[0].content).toBe('Our spring sale starts Monday with 30% off');
    expect(list.body.suggestions[0].useCase).toBe('emailOutline');

    const { rows } = await sql<{
      tokens: string;
      requests: number;
    }>`select tokens, requests from ai_token_use where account_id = ${account.accountId}`.execute(
      ctx.services.db,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.requests).toBe(2);
    expect(Number(rows[0]!.tokens)).toBeGreaterThan(50);
  });

  it("keeps accounts apart: one account's suggestions are not listed in another's", async () => {
    const a = await registerUser(ctx.app);
    const b = await registerUser(ctx.app);
    await a.client.post('/v1/ai-writer', {
      useCase: 'subjectLine',
      parameters: { ...brief, companyName: 'Only A' },
    });
    expect((await a.client.get('/v1/ai-writer')).body.suggestions.length).toBe(5);
    expect((await b.client.get('/v1/ai-writer')).body).toEqual({ suggestions: [] });
  });

  it('shows the flag canAccessAIWriter on the account when a provider is configured', async () => {
    const { client } = await registerUser(ctx.app);
    expect((await client.get('/v1/accounts')).body.flags.canAccessAIWriter).toBe(true);
  });

  it('talks to a model that refuses max_tokens (OpenAI reasoning models) with max_completion_tokens instead', async () => {
    const { client } = await registerUser(ctx.app);
    standin.mode = 'reasoning';
    const before = standin.requests.length;
    const res = await client.post('/v1/ai-writer', { useCase: 'emailOutline', parameters: brief });
    expect(res.status).toBe(201);
    expect(res.body.suggestions[0].content).toContain(
      '- Explain: Our spring sale starts Monday with 30% off',
    );
    const [first, second] = standin.requests.slice(before);
    expect(first!.body).toMatchObject({ max_tokens: 600, temperature: 0.8 });
    expect(second!.body).toMatchObject({ max_completion_tokens: 2400 });
    expect(second!.body.max_tokens).toBeUndefined();
    expect(standin.requests.length - before).toBe(2);
  });
});

describe('refusing bad input', () => {
  it.each([
    [
      'no emailAbout',
      { useCase: 'writeEmail', parameters: { companyName: 'Acme' } },
      'What the email is about is required.',
    ],
    [
      'a blank emailAbout',
      { parameters: { emailAbout: '   ', companyName: 'Acme' } },
      'What the email is about is required.',
    ],
    ['no companyName', { parameters: { emailAbout: 'A sale' } }, 'The company name is required.'],
    [
      '50 kB of text',
      { parameters: { emailAbout: 'x'.repeat(50_000), companyName: 'Acme' } },
      'What the email is about is too long: keep it under 2000 characters.',
    ],
    [
      'a long tone',
      { parameters: { emailAbout: 'A sale', companyName: 'Acme', tone: 'y'.repeat(101) } },
      'The tone is too long: keep it under 100 characters.',
    ],
    [
      'an unknown use case',
      { useCase: 'poem', parameters: { emailAbout: 'A sale', companyName: 'Acme' } },
      'Choose subjectLine, writeEmail or emailOutline as the use case.',
    ],
    ['no parameters', { useCase: 'writeEmail' }, 'Send the parameters emailAbout, companyName and tone.'],
  ])('%s is a 400 with a clear message, and nothing is asked or stored', async (_name, body, message) => {
    const { client } = await registerUser(ctx.app);
    const before = standin.requests.length;
    const res = await client.post('/v1/ai-writer', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(standin.requests.length).toBe(before);
    expect((await client.get('/v1/ai-writer')).body.suggestions).toEqual([]);
  });

  it('needs emails:write to draft and emails:read to list', async () => {
    const { client, account } = await registerUser(ctx.app);
    const readOnly = scopeIds.map((id) => ({ id, enabled: id === 'emails:read' }));
    await sql`update team_members set is_owner = false, scopes = ${JSON.stringify(readOnly)}::jsonb where account_id = ${account.accountId}`.execute(
      ctx.services.db,
    );
    expect((await client.get('/v1/ai-writer')).status).toBe(200);
    const refused = await client.post('/v1/ai-writer', { parameters: brief });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('emails:write');
    await sql`update team_members set scopes = ${JSON.stringify(scopeIds.map((id) => ({ id, enabled: false })))}::jsonb where account_id = ${account.accountId}`.execute(
      ctx.services.db,
    );
    expect((await client.get('/v1/ai-writer')).status).toBe(403);
  });
});

describe('when the provider fails', () => {
  it.each([
    ['returns garbage', 'garbage', aiWriterMessages.couldNotRetrieve],
    ['answers 500', 'error500', aiWriterMessages.couldNotRetrieve],
    ['answers with no text', 'empty', aiWriterMessages.couldNotRetrieve],
    ['refuses the key', 'refuse', 'The AI provider refused the request: Incorrect API key provided.'],
  ] as const)(
    'a provider that %s is a 503 with a message, and nothing is stored or counted',
    async (_name, mode, message) => {
      const { client, account } = await registerUser(ctx.app);
      standin.mode = mode;
      const res = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ name: 'ServiceError', message, errorCode: 'ai-provider' });
      standin.mode = 'ok';
      expect((await client.get('/v1/ai-writer')).body.suggestions).toEqual([]);
      const { rows } = await sql`select 1 from ai_token_use where account_id = ${account.accountId}`.execute(
        ctx.services.db,
      );
      expect(rows).toEqual([]);
    },
  );

  it('a provider that does not answer in time is given up after AI_TIMEOUT_MS', async () => {
    const quick = await serverWithAi({ AI_TIMEOUT_MS: '1000' });
    const { client } = await registerUser(quick.app);
    standin.mode = 'slow';
    const started = Date.now();
    const res = await client.post('/v1/ai-writer', { parameters: brief });
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.message).toBe(aiWriterMessages.timedOut);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5000);
    standin.mode = 'ok';
    expect((await client.get('/v1/ai-writer')).body.suggestions).toEqual([]);
  });
});

describe('limits', () => {
  it('refuses past the hourly request limit with a 429 and a clear message', async () => {
    const limited = await serverWithAi({ AI_REQUESTS_PER_HOUR: '2' });
    const { client } = await registerUser(limited.app);
    const other = await registerUser(limited.app);
    expect((await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief })).status).toBe(
      201,
    );
    standin.mode = 'error500';
    expect((await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief })).status).toBe(
      503,
    );
    standin.mode = 'ok';
    const refused = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      message: aiWriterMessages.tooManyRequests(2),
      errorCode: 'ai-rate-limit',
    });
    expect(refused.body.retryAfter).toBeGreaterThan(0);
    // The limit is per account.
    expect(
      (await other.client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief })).status,
    ).toBe(201);
  });

  it('refuses once the monthly tokens are used, naming the date they renew', async () => {
    const budgeted = await serverWithAi({ AI_MONTHLY_TOKENS: '100' });
    const { client } = await registerUser(budgeted.app);
    expect((await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief })).status).toBe(
      201,
    );
    const before = standin.requests.length;
    const refused = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
    expect(refused.status).toBe(429);
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const resetText = reset.toLocaleDateString('en-US', {
      timeZone: 'UTC',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    });
    expect(refused.body).toMatchObject({
      message: aiWriterMessages.budgetUsed(resetText),
      errorCode: 'ai-budget',
    });
    expect(standin.requests.length).toBe(before);
  });
});

describe('when the AI writer is off', () => {
  it('without a provider: a 403 saying how to turn it on, the flag is false and nothing is asked', async () => {
    const off = await createTestContext();
    contexts.push(off);
    const { client } = await registerUser(off.app);
    const before = standin.requests.length;
    for (const res of [
      await client.post('/v1/ai-writer', { parameters: brief }),
      await client.get('/v1/ai-writer'),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ message: aiWriterMessages.notEnabled, errorCode: 'ai-not-enabled' });
    }
    expect((await client.get('/v1/accounts')).body.flags.canAccessAIWriter).toBe(false);
    expect(standin.requests.length).toBe(before);
  });

  it('with plans, an expired trial may not use it (402), a running one may', async () => {
    const plans = await serverWithAi({ BILLING_MODE: 'plans' });
    const { client, account } = await registerUser(plans.app);
    expect((await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief })).status).toBe(
      201,
    );
    await sql`update accounts set trial_ends_at = now() - interval '1 day' where id = ${account.accountId}`.execute(
      plans.services.db,
    );
    const refused = await client.post('/v1/ai-writer', { useCase: 'subjectLine', parameters: brief });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      message: aiWriterMessages.planNotAllowed,
      errorCode: 'ai-plan-inactive',
    });
    expect((await client.get('/v1/accounts')).body.flags.canAccessAIWriter).toBe(false);
  });
});
