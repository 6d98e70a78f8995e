import {
  ServiceConnectionResponse,
  ServiceConnections,
  ServiceOperationAnswer,
  ServicesResponse,
  WebhookDeliveryList,
  WebhookDeliveryResponse,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookSecret,
  type WebhookEventType,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { accountIssuesKey } from '../account/account.api.ts';

export const servicesKey = ['services'] as const;
export const connectionsKey = ['services', 'connections'] as const;
export const endpointsKey = ['webhook-endpoints'] as const;
export const deliveriesKey = (id: number) => ['webhook-endpoints', 'deliveries', id] as const;

/** GET /v1/services: Herald, Slack and the third-party apps with how to use each. */
export function useServices() {
  return useQuery({
    queryKey: servicesKey,
    queryFn: () => api.get('/services', { schema: ServicesResponse }),
    staleTime: 5 * 60_000,
  });
}

/** GET /v1/services/connections: which services are connected and whether they still work. */
export function useConnections() {
  return useQuery({
    queryKey: connectionsKey,
    queryFn: () => api.get('/services/connections', { schema: ServiceConnections }),
  });
}

export function useConnectSlack() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (url: string) => api.post('/auth/slack', { url }, { schema: ServiceConnectionResponse }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: connectionsKey });
      void client.invalidateQueries({ queryKey: accountIssuesKey });
      void client.invalidateQueries({ queryKey: ['flows'] });
    },
  });
}

export function useDisconnectSlack() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('/auth/slack', { schema: ServiceConnectionResponse }),
    onSuccess: () => void client.invalidateQueries({ queryKey: connectionsKey }),
  });
}

export function useTestSlack() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('/services/slack/test', {}, { schema: ServiceOperationAnswer }),
    onSettled: () => void client.invalidateQueries({ queryKey: connectionsKey }),
  });
}

export function useEndpoints(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: endpointsKey,
    queryFn: () => api.get('/webhook-endpoints', { schema: WebhookEndpointList }),
    enabled: options.enabled ?? true,
  });
}

export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description: string | null;
}

export function useCreateEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: EndpointInput) =>
      api.post('/webhook-endpoints', input, { schema: WebhookEndpointCreated }),
    onSuccess: () => void client.invalidateQueries({ queryKey: endpointsKey }),
  });
}

export function useUpdateEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...changes }: Partial<EndpointInput> & { id: number; enabled?: boolean }) =>
      api.patch(`/webhook-endpoints/${id}`, changes, { schema: WebhookEndpointResponse }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: endpointsKey });
      void client.invalidateQueries({ queryKey: accountIssuesKey });
    },
  });
}

export function useDeleteEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/webhook-endpoints/${id}`, { schema: WebhookEndpointResponse }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: endpointsKey });
      void client.invalidateQueries({ queryKey: accountIssuesKey });
    },
  });
}

export function useTestEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      api.post(`/webhook-endpoints/${id}/test`, {}, { schema: WebhookDeliveryResponse }),
    onSettled: (_data, _error, id) => void client.invalidateQueries({ queryKey: deliveriesKey(id) }),
  });
}

export function useRetryDelivery(endpointId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number) =>
      api.post(
        `/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`,
        {},
        { schema: WebhookDeliveryResponse },
      ),
    onSettled: () => void client.invalidateQueries({ queryKey: deliveriesKey(endpointId) }),
  });
}

export const fetchSecret = (id: number) =>
  api.get(`/webhook-endpoints/${id}/secret`, { schema: WebhookSecret });

/** The delivery log, asked again every 5 s while it is open (deliveries go out in the background). */
export function useDeliveries(id: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: deliveriesKey(id),
    queryFn: () => api.get(`/webhook-endpoints/${id}/deliveries?limit=50`, { schema: WebhookDeliveryList }),
    enabled: options.enabled ?? true,
    refetchInterval: 5_000,
  });
}
