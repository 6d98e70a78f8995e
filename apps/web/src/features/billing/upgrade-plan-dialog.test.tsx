// @vitest-environment jsdom
import type { BillingAnswer } from '@herald/contracts';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, testQueryClient, type ApiCall } from '../../test/api.tsx';
import { chooseOption, renderUi, uiTestTimeout } from '../../test/render-ui.tsx';
import { accountKey } from '../account/account.api.ts';
import { billingAnswer, planGroups } from './billing.fixtures.ts';
import { billingKey, planChoicesKey } from './billing.api.ts';
import { UpgradePlanDialog } from './upgrade-plan-dialog.tsx';

const owner = {
  accountId: 12,
  teamMember: { email: 'owner@example.com', accountData: { isOwner: true, scopes: [] } },
};
const premium150k = '100,001 - 150,000 People: $1,199 per month';

/** The dialog over an account with 100,000 people allowed; checkout answers with an address on this page. */
function open(billing: Partial<BillingAnswer> = {}) {
  const calls = stubApi((call: ApiCall) =>
    call.path === '/billing/checkout'
      ? { body: { url: `${window.location.href.split('#')[0]}#paid` } }
      : { status: 404 },
  );
  const client = testQueryClient([
    [accountKey, owner],
    [billingKey, billingAnswer(billing)],
    [planChoicesKey, { groups: planGroups(100_000) }],
  ]);
  renderUi(<UpgradePlanDialog opened onClose={() => undefined} />, client);
  return calls;
}

const plan = () => screen.getByRole('textbox', { name: 'Plan' }) as HTMLInputElement;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('UpgradePlanDialog', { timeout: uiTestTimeout }, () => {
  it('starts on the smallest plan above the current limit, and shows what each chosen plan is billed', async () => {
    open();
    expect(plan().value).toBe('100,001 - 150,000 People: $999 per month');
    expect(screen.getByText('Monthly Growth: $999 billed every month.')).toBeTruthy();
    await chooseOption('Plan', premium150k);
    expect(plan().value).toBe(premium150k);
    expect(screen.getByText('Monthly Premium: $1,199 billed every month.')).toBeTruthy();
    await chooseOption('Plan', '150,001 - 200,000 People: $999 per month (billed yearly) - 2 Months Free!');
    expect(screen.getByText('Annual Growth - 2 Months Free: $11,988 billed every year.')).toBeTruthy();
  });

  it("sends the chosen plan and way to pay to checkout, then goes to the provider's page", async () => {
    const calls = open({ providers: { chargebee: true, paypal: true } });
    await chooseOption('Plan', premium150k);
    await userEvent.click(screen.getByRole('radio', { name: 'PayPal' }));
    await userEvent.click(screen.getByRole('button', { name: 'Upgrade to this plan' }));
    await waitFor(() => expect(window.location.hash).toBe('#paid'), { timeout: 5000 });
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/billing/checkout',
        body: { plan: 'premium-monthly-v3', peopleUpperLimit: 150000, provider: 'paypal' },
      },
    ]);
  });

  it('pays by the only provider there is without asking', async () => {
    const calls = open();
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.getByText('You pay by card on the next page.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Upgrade to this plan' }));
    await waitFor(
      () =>
        expect(calls.map((call) => call.body)).toEqual([
          { plan: 'growth-monthly-v1', peopleUpperLimit: 150000, provider: 'chargebee' },
        ]),
      { timeout: 5000 },
    );
  });

  it("without a payment provider, gives the operator's command for the chosen plan and confirms nothing", async () => {
    open({ providers: { chargebee: false, paypal: false } });
    expect(screen.getByText('npm run cli -- plan 12 growth-monthly-v1 150000')).toBeTruthy();
    await chooseOption('Plan', premium150k);
    expect(screen.getByText('npm run cli -- plan 12 premium-monthly-v3 150000')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Upgrade to this plan' })).toBeNull();
  });

  it('lets a member without the permission see the plans but not confirm one', () => {
    open({ canChangePlan: false });
    expect((screen.getByRole('button', { name: 'Upgrade to this plan' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect(screen.getByText(/needs the “Change plan and billing” permission/)).toBeTruthy();
  });
});
