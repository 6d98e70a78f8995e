import { SiteTrackingStatus, UniqueFormEvents } from '@herald/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

/** GET /v1/settings/site-tracking: the snippet and what the script has seen. */
export function useSiteTrackingStatus() {
  return useQuery({
    queryKey: ['site-tracking', 'status'],
    queryFn: () => api.get('/settings/site-tracking', { schema: SiteTrackingStatus }),
  });
}

/** GET /v1/settings/site-tracking/unique-form-events: the forms seen on the site. */
export function useTrackedForms() {
  return useQuery({
    queryKey: ['site-tracking', 'forms'],
    queryFn: () => api.get('/settings/site-tracking/unique-form-events', { schema: UniqueFormEvents }),
  });
}
