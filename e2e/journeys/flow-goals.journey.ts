import { encodeInputFields } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  sql,
  uniqueEmail,
} from '../support/browser.ts';
import { until } from '../support/until.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

async function choose(page: Page, scope: ReturnType<Page['getByRole']>, label: string, option: string) {
  await scope.getByRole('textbox', { name: label }).last().click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** On time-out, says where the flow's runs stand. */
const runsOf = (what: string, flowId: number) => async () => {
  const runs = await sql(
    'select r.status, r.step_id, r.wake_at, r.last_error, array(select step_id from flow_run_steps s where s.run_id = r.id order by seq) as steps from flow_runs r where r.flow_id = $1',
    [flowId],
  );
  return `${what} (runs: ${JSON.stringify(runs.rows)})`;
};

describe('flow goals', () => {
  it('a marketer sets a goal on a flow, a person reaching it leaves the flow as a conversion, and the header and the steps show it', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const flow = (await api('POST', '/v1/integrations', { name: 'Trial to customer' }, cookie)).body
      .integration as { id: number };
    const trigger = await api(
      'POST',
      '/v1/steps/',
      {
        flowId: flow.id,
        operationKey: '/added-tag',
        inputFields: encodeInputFields({ tag: 'trial' }),
        coordinates: { x: 0, y: 0 },
      },
      cookie,
    );
    const wait = await api(
      'POST',
      '/v1/steps/',
      {
        flowId: flow.id,
        operationKey: '/delay-v2',
        inputFields: encodeInputFields({ wait: { mode: 'duration', amount: 3, unit: 'days' } }),
        coordinates: { x: 0, y: 170 },
      },
      cookie,
    );
    const after = await api(
      'POST',
      '/v1/steps/',
      {
        flowId: flow.id,
        operationKey: '/add-tag',
        inputFields: encodeInputFields({ tag: 'nurtured' }),
        coordinates: { x: 0, y: 340 },
      },
      cookie,
    );
    expect(
      (await api('POST', '/v1/links/', { source: trigger.body.step.id, target: wait.body.step.id }, cookie))
        .status,
    ).toBe(201);
    expect(
      (await api('POST', '/v1/links/', { source: wait.body.step.id, target: after.body.step.id }, cookie))
        .status,
    ).toBe(201);
    expect((await api('PATCH', `/v1/integrations/${flow.id}`, { status: 'active' }, cookie)).status).toBe(
      200,
    );
    // The goal's tag exists so the editor offers it.
    const person = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: uniqueEmail('ada'), firstName: 'Ada' },
      cookie,
    );
    const personId = person.body.user.id as number;
    expect((await api('POST', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(
      300,
    );
    expect((await api('DELETE', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(
      300,
    );

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flow.id}`);
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

    // Ada enters the flow and waits at the wait step; becoming a customer ends her run as a conversion.
    expect((await api('POST', '/v1/tags/', { tag: 'trial', id: personId }, cookie)).status).toBeLessThan(300);
    await until(
      async () =>
        (await sql("select 1 from flow_runs where flow_id = $1 and status = 'waiting'", [flow.id]))
          .rowCount === 1,
      { timeout: 30_000, interval: 200, message: runsOf('Ada waits in the flow', flow.id) },
    );
    expect((await api('POST', '/v1/tags/', { tag: 'customer', id: personId }, cookie)).status).toBeLessThan(
      300,
    );
    await until(
      async () =>
        (await api('GET', `/v1/integrations/${flow.id}/conversions`, undefined, cookie)).body.conversions ===
        1,
      { timeout: 30_000, interval: 200, message: runsOf('Ada converts', flow.id) },
    );
    await page.reload();
    await page.getByRole('button', { name: 'Goal: 1 conversion (100%)' }).waitFor();
    const stepFigures = page.getByTestId('step-conversion');
    await expect.poll(() => stepFigures.count()).toBe(3);
    // Ada passed the trigger and the wait, and converted before the last step.
    expect((await stepFigures.allInnerTexts()).sort()).toEqual(['0 (0%)', '1 (100%)', '1 (100%)']);
    await checkAccessibility(page);
    await screenshot(page, 'flow-goal-canvas');

    // The Metrics page, filtered to the flow, shows the same conversions step by step.
    await page.goto('/metrics');
    await page.getByRole('textbox', { name: 'Flow' }).click();
    await page.getByRole('option', { name: 'Trial to customer' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('flow')).toBe(String(flow.id));
    const table = page.getByRole('table', { name: 'Goal conversions by step of Trial to customer' });
    await page.getByText('1 of 1 people who entered reached the goal (100.0%)').waitFor();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    expect(await table.getByRole('row', { name: /Tag added/ }).innerText()).toMatch(/1\s+1\s+100\.0%/);
    await checkAccessibility(page);
    await screenshot(page, 'metrics-flow-conversions');
    await page.goto(`/flows/${flow.id}`);

    // A goal the segment checks refuse is said in the drawer; removing the goal is one click.
    await page.getByRole('button', { name: 'Goal: 1 conversion (100%)' }).click();
    await drawer.getByRole('button', { name: 'Remove goal' }).click();
    await page.getByText('Goal removed.').waitFor();
    await page.getByRole('button', { name: 'Set a goal' }).waitFor();
  });
});
