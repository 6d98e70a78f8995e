import type { BillingAnswer } from '@herald/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const billingKey = ['billing'] as const;

/**
 * GET /v1/billing: plan, trial, people limit and which payment providers the server has. The usage banner above every
 * page reads it, so it takes the contract's type without parsing the answer with zod in the browser (the server checks
 * it against `BillingAnswer` on its way out; docs/web-app.md, "A lighter web app").
 */
export function useBilling(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: billingKey,
    queryFn: () => api.get<BillingAnswer>('/billing'),
    enabled: options.enabled ?? true,
  });
}
