import { CheckoutAnswer, InvoicesAnswer, PlanChoicesAnswer, type CheckoutBody } from '@herald/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export { billingKey, useBilling } from './billing-status.api.ts';
export const planChoicesKey = ['billing', 'plans'] as const;
export const invoicesKey = ['billing', 'invoices'] as const;

/** GET /v1/billing/plans: the upgrade dialog's groups (only plans above the current limit). */
export function usePlanChoices(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: planChoicesKey,
    queryFn: () => api.get('/billing/plans', { schema: PlanChoicesAnswer }),
    enabled: options.enabled ?? true,
  });
}

/** GET /v1/billing/invoices: what the payment providers hold for this account. */
export function useInvoices(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: invoicesKey,
    queryFn: () => api.get('/billing/invoices', { schema: InvoicesAnswer }),
    enabled: options.enabled ?? true,
  });
}

/** POST /v1/billing/checkout: the provider's page to pay on; the caller sends the browser there. */
export function useCheckout() {
  return useMutation({
    mutationFn: (body: CheckoutBody) => api.post('/billing/checkout', body, { schema: CheckoutAnswer }),
  });
}
