import { DashboardResponse } from '@herald/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const dashboardKey = ['dashboard'] as const;

/** GET /v1/dashboard: asked again each time the page opens, so numbers changed elsewhere show at once. */
export function useDashboard() {
  return useQuery({
    queryKey: dashboardKey,
    queryFn: () => api.get('/dashboard', { schema: DashboardResponse }),
    staleTime: 0,
    refetchOnMount: 'always',
  });
}
