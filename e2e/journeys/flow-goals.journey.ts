import { encodeInputFields } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, createUser, launchBrowser, logIn, newPage, screenshot, sql, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

async function choose(page: Page, scope: ReturnType<Page['getByRole']>, label: string, option: string) {
  await scope.getByRole('textbox', { name: label }).last().click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('flow goals', () => {
  it('a marketer sets a goal on a flow, a person reaching it leaves the flow as a conversion, and the header and the steps show it', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const flow = (await api('POST', '/v1/integrations', { name: 'Trial to customer' }, cookie)).body.integration as { id: number };
    const trigger = await api('POST', '/v1/steps/', { flowId: flow.id, operationKey: '/added-tag', inputFields: encodeInputFields({ tag: 'trial' }), coordinates: { x: 0, y: 0 } }, cookie);
    const wait = await api('POST', '/v1/steps/', { flowId: flow.id, operationKey: '/delay-v2', inputFields: encodeInputFields({ wait: { mode: 'duration', amount: 3, unit: 'days' } }), coordinates: { x: 0, y: 170 } }, cookie);
    expect((await api('POST', '/v1/links/', { source: trigger.body.step.id, target: wait.body.step.id }, cookie)).status).toBe(201);
    expect((await api('PATCH', `/v1/integrations/${flow.id}`, { status: 'active' }, cookie)).status).toBe(200);
    // The goal's tag exists so the editor offers it.
    const person = await api('POST', '/v1/people/?source=manual', { email: uniqueEmail('ada'), firstName: 'Ada' }, cookie);
    const personId = person.body.user.id as number;
    expect((await api('POST', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(300);
    expect((await api('DELETE', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(300);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);
    await page.goto(`/flows/${flow.id}`);
    await page.getByRole('button', { name: 'Set a goal' }).click();
    const drawer = page.getByRole('dialog', { name: 'Flow goal' });
    await drawer.getByRole('button', { name: 'Add condition' }).click();
    await page.getByRole('menuitem', { name: 'Tag', exact: true }).click();
    await choose(page, drawer, 'Tag', 'customer');
    await checkAccessibility(page);
    await screenshot(page, 'flow-goal-drawer');
    await drawer.getByRole('button', { name: 'Save goal' }).click();
    await page.getByText('Goal saved.').waitFor();
    await page.getByRole('button', { name: /^Goal: 0 conversions \(0%\)$/ }).waitFor();

    // Ada enters the flow and waits; becoming a customer ends her run as a conversion.
    expect((await api('POST', '/v1/tags/', { tag: 'trial', id: personId }, cookie)).status).toBeLessThan(300);
    let deadline = Date.now() + 30_000;
    while ((await api('GET', `/v1/integrations/${flow.id}/people-counts`, undefined, cookie)).body.active !== 1) {
      if (Date.now() > deadline) {
        const runs = await sql('select status, step_id, wake_at, last_error from flow_runs where flow_id = $1', [flow.id]);
        const person = await sql('select tags from people where id = $1', [personId]);
        throw new Error(`Ada never entered the flow: ${JSON.stringify(runs.rows)} ${JSON.stringify(person.rows)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await api('POST', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(300);
    deadline = Date.now() + 30_000;
    while ((await api('GET', `/v1/integrations/${flow.id}/conversions`, undefined, cookie)).body.conversions !== 1) {
      if (Date.now() > deadline) {
        const runs = await sql('select status, step_id, wake_at, last_error from flow_runs where flow_id = $1', [flow.id]);
        const jobs = await sql("select key, run_at, locked_at, attempts, last_error from graphile_worker._private_jobs where key like 'advance-flow:%'");
        throw new Error(`Ada never converted: ${JSON.stringify(runs.rows)} ${JSON.stringify(jobs.rows)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.reload();
    await page.getByRole('button', { name: 'Goal: 1 conversion (100%)' }).waitFor();
    const stepFigures = page.getByTestId('step-conversion');
    await expect.poll(() => stepFigures.count()).toBe(2);
    expect(await stepFigures.allInnerTexts()).toEqual(['1 (100%)', '1 (100%)']);
    await checkAccessibility(page);
    await screenshot(page, 'flow-goal-canvas');

    // A goal the segment checks refuse is said in the drawer; removing the goal is one click.
    await page.getByRole('button', { name: 'Goal: 1 conversion (100%)' }).click();
    await drawer.getByRole('button', { name: 'Remove goal' }).click();
    await page.getByText('Goal removed.').waitFor();
    await page.getByRole('button', { name: 'Set a goal' }).waitFor();
  });
});
