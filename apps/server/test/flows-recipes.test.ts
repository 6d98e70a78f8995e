import {
  decodeInputFields,
  firstClassFieldNames,
  flowMessages,
  recipeMessages,
  type Flow,
  type RecipeSummary,
} from '@herald/contracts';
import { lintEmail } from '@herald/email';
import { describe, expect, it } from 'vitest';
import { recipes } from '../src/features/flows/recipes/index.ts';
import { addMember } from './email-helpers.ts';
import { accountOf, activate, smtpSink, useFlowsContext } from './flows-fixtures.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';

const testContext = useFlowsContext();

async function fromRecipe(client: Client, recipe: string, body: Record<string, unknown> = {}) {
  const res = await client.post(`/v1/integrations?recipe=${encodeURIComponent(recipe)}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { integration: Flow; message: string };
}

const stepsOf = (flow: Flow) => Object.values(flow.steps);
const configOf = (flow: Flow, operationKey: string) =>
  decodeInputFields(stepsOf(flow).find((s) => s.operationKey === operationKey)!.inputFields);

describe('recipes', () => {
  it('lists at least eight recipes with what they hold, to anyone who may see flows', async () => {
    const owner = await registerUser(testContext().app);
    const res = await owner.client.get('/v1/recipes');
    expect(res.status).toBe(200);
    const list = res.body.recipes as RecipeSummary[];
    expect(list.length).toBeGreaterThanOrEqual(8);
    expect(list.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        'welcome-series',
        'trial-nurture',
        're-engagement',
        'abandoned-signup',
        'webinar-reminders',
        'birthday',
        'lead-scoring',
        'post-purchase',
      ]),
    );
    for (const recipe of list) {
      const source = recipes.find((r) => r.id === recipe.id)!;
      expect(recipe).toMatchObject({
        name: source.name,
        stepCount: source.steps.length,
        emailCount: source.emails.length,
      });
      expect(recipe.description.length).toBeGreaterThan(40);
    }
    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
    expect((await reader.get('/v1/recipes')).status).toBe(200);
    const outsider = await addMember(testContext(), smtpSink(), owner, ['emails:read']);
    expect((await outsider.get('/v1/recipes')).status).toBe(403);
    expect((await new Client(testContext().app).get('/v1/recipes')).status).toBe(401);
  });

  it('creates each recipe as a flow that is off, with its steps, links, places and draft emails, and nothing left to set up but what it says', async () => {
    const owner = await registerUser(testContext().app);
    for (const recipe of recipes) {
      const { integration: flow, message } = await fromRecipe(owner.client, recipe.id);
      expect(message).toBe(recipeMessages.created(recipe.name));
      expect(flow).toMatchObject({
        name: recipe.name,
        recipe: recipe.id,
        status: 'deactivated-user',
        archived: false,
      });
      expect(stepsOf(flow)).toHaveLength(recipe.steps.length);
      expect(flow.links).toHaveLength(recipe.links.length);
      expect(
        stepsOf(flow)
          .map((s) => s.coordinates)
          .sort((a, b) => a.y - b.y || a.x - b.x),
      ).toEqual(recipe.steps.map((s) => ({ x: s.x, y: s.y })).sort((a, b) => a.y - b.y || a.x - b.x));
      // validateFlow and the step checks find nothing, except the settings the recipe asks the user to choose.
      if (recipe.toChoose.length === 0) expect(flow.warnings, recipe.id).toEqual([]);
      else expect(flow.warnings.length, recipe.id).toBeGreaterThan(0);

      const emails = (await owner.client.get(`/v1/integrations/${flow.id}/emails`)).body.emails as Array<{
        id: number;
        name: string;
        subject: string;
        fromEmail: string;
      }>;
      expect(emails.map((e) => e.name).sort(), recipe.id).toEqual(recipe.emails.map((e) => e.name).sort());
      for (const email of emails) {
        expect(email.fromEmail).toBe(owner.email);
        const full = (await owner.client.get(`/v1/emails/${email.id}`)).body.email;
        expect(full).toMatchObject({ archived: false, editor: { type: 'html' } });
        expect(full.html).toContain('{{ unsubscribe_url }}');
      }
    }
    // The webinar's waits until a date are the one thing to choose.
    const webinar = await fromRecipe(owner.client, 'webinar-reminders');
    expect(webinar.integration.warnings).toEqual([flowMessages.unconfigured('Wait')]);
    // Flows of the same recipe live side by side; a name may be given.
    const named = await fromRecipe(owner.client, 'welcome-series', { name: 'Hello new people' });
    expect(named.integration.name).toBe('Hello new people');
  });

  it('passes every recipe email through the email warnings check', () => {
    const account = {
      name: 'Acme',
      mailingAddress: '1 Market Street, Springfield',
      site: 'https://acme.example',
    };
    for (const recipe of recipes) {
      const personFields = [...firstClassFieldNames, ...(recipe.fields ?? []).map((f) => f.name)];
      for (const email of recipe.emails) {
        expect(email.subject.trim(), email.name).not.toBe('');
        expect(email.preheader.trim(), email.name).not.toBe('');
        expect(email.name.startsWith(`${recipe.name}: `), email.name).toBe(true);
        expect(
          lintEmail(
            {
              subject: email.subject,
              preheader: email.preheader,
              html: email.html,
              fromEmail: 'team@acme.example',
            },
            { personFields, account },
          ),
          email.name,
        ).toEqual([]);
      }
    }
  });

  it('points steps at the emails it made, the automatic segments, new custom fields and the user as notified team member', async () => {
    const owner = await registerUser(testContext().app);
    const welcome = (await fromRecipe(owner.client, 'welcome-series')).integration;
    const segments = (await owner.client.get('/v1/segments')).body.segments as Array<{
      id: number;
      autoType?: string;
      name: string;
    }>;
    const newSegment = segments.find((s) => s.name === 'New')!;
    expect(configOf(welcome, '/entered-segment')).toEqual({ segment: { id: newSegment.id } });
    const emailIds = (await owner.client.get(`/v1/integrations/${welcome.id}/emails`)).body.emails
      .map((e: { id: number }) => e.id)
      .sort();
    const sent = stepsOf(welcome)
      .filter((s) => s.operationKey === '/send')
      .map((s) => (decodeInputFields(s.inputFields) as { email: { id: number } }).email.id)
      .sort();
    expect(sent).toEqual(emailIds);

    // A field named like the recipe's (in another case) is used, not doubled.
    expect(
      (
        await owner.client.post('/v1/fields', {
          items: [{ name: 'Birthday', title: 'Date of birth', type: 'date' }],
        })
      ).status,
    ).toBe(201);
    await fromRecipe(owner.client, 'birthday');
    const scoring = (await fromRecipe(owner.client, 'lead-scoring')).integration;
    expect(scoring.reentry).toBe('after-days');
    expect(configOf(scoring, '/email-notification')).toMatchObject({ to: [owner.email] });
    const fields = (await owner.client.get('/v1/fields')).body.items as Array<{ name: string; type: string }>;
    expect(fields.filter((f) => f.name.toLowerCase() === 'birthday')).toHaveLength(1);
    expect(fields.find((f) => f.name === 'leadScore')).toMatchObject({ type: 'number' });
  });

  it('switches on a recipe flow once its sender is verified', async () => {
    const owner = await registerUser(testContext().app);
    const flow = (await fromRecipe(owner.client, 'post-purchase')).integration;
    const refused = await activate(owner.client, flow.id);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(flowMessages.unverifiedAddress(owner.email));
    await testContext()
      .services.db.insertInto('senderAddresses')
      .values({ accountId: accountOf(owner), email: owner.email, status: 'verified' })
      .execute();
    const on = await activate(owner.client, flow.id);
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.message).toBe(flowMessages.activated);
  });

  it('runs a recipe flow: a person tagged trial gets its first email, with their name, and waits for the next', async () => {
    const owner = await registerUser(testContext().app);
    const accountId = accountOf(owner);
    await testContext()
      .services.db.insertInto('senderAddresses')
      .values({ accountId, email: owner.email, status: 'verified' })
      .execute();
    const flow = (await fromRecipe(owner.client, 'trial-nurture')).integration;
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const address = uniqueEmail('trialist');
    const person = await owner.client.post('/v1/people/?source=manual', {
      email: address,
      firstName: 'Tess',
    });
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    expect(
      (await owner.client.post('/v1/tags/', { tag: 'trial', id: person.body.user.id })).status,
    ).toBeLessThan(300);
    const mail = await smtpSink().waitFor(address);
    expect(mail.subject).toContain('Your trial of');
    expect(mail.html).toContain('Your trial is on, Tess');
    const wait = stepsOf(flow).find((s) => s.operationKey === '/delay-v2')!;
    await expect
      .poll(
        async () =>
          (await owner.client.get(`/v1/integrations/${flow.id}/people-counts`)).body.steps[String(wait.id)],
        { timeout: 20_000 },
      )
      .toBe(1);
  });

  it('refuses an unknown recipe, a malformed one, and a member who may not change flows, creating nothing', async () => {
    const owner = await registerUser(testContext().app);
    const unknown = await owner.client.post('/v1/integrations?recipe=world-domination', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(recipeMessages.notFound);
    expect((await owner.client.post(`/v1/integrations?recipe=${'x'.repeat(61)}`, {})).status).toBe(400);
    const both = await owner.client.post('/v1/integrations?recipe=birthday&source=5', {});
    expect(both.status).toBe(400);
    expect(both.body.message).toBe(recipeMessages.sourceAndRecipe);
    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
    expect((await reader.post('/v1/integrations?recipe=birthday', {})).status).toBe(403);
    expect((await owner.client.get('/v1/integrations')).body.integrations).toEqual([]);
    expect((await owner.client.get('/v1/emails')).body.emails).toEqual([]);
  });
});
