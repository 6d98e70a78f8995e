import type { PublicConfig } from '@herald/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from './api.ts';

const fallbackConfig: PublicConfig = {
  productName: 'Herald',
  googleClientId: null,
  devMailbox: false,
  supportUrl: null,
  supportEmail: null,
};

/** GET /v1/config, read once; while loading or if it fails, optional features stay hidden. */
export function useConfig(): PublicConfig & { isLoading: boolean } {
  const query = useQuery({
    queryKey: ['config'],
    queryFn: () => api.get<PublicConfig>('/config'),
    staleTime: Infinity,
    retry: 1,
  });
  return { ...(query.data ?? fallbackConfig), isLoading: query.isLoading };
}
