import {
  ConfirmSenderResponse,
  SenderAddressList,
  SenderAddressResponse,
  SenderDomainList,
  SenderDomainResponse,
  VerifyDomainResponse,
  type SenderAddress,
  type SenderDomain,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

const addressesKey = ['sender-addresses'] as const;
const domainsKey = ['sender-domains'] as const;
const domainKey = (id: number) => ['sender-domains', 'one', id] as const;

type AddressList = { emails: SenderAddress[] };
type DomainList = { domains: SenderDomain[] };

export function useSenderAddresses() {
  return useQuery({
    queryKey: addressesKey,
    queryFn: () => api.get('/settings/email/addresses', { schema: SenderAddressList }),
  });
}

export function useAddSenderAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) =>
      api.post('/settings/email/addresses', { email }, { schema: SenderAddressResponse }),
    onSuccess: ({ email }) => {
      queryClient.setQueryData<AddressList>(addressesKey, (list) =>
        list ? { emails: [...list.emails.filter((item) => item.email !== email.email), email] } : list,
      );
      void queryClient.invalidateQueries({ queryKey: addressesKey });
    },
  });
}

export function useSendVerification() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (emails: string[]) =>
      api.post<{ message: string }>('/settings/email/addresses/verification', { emails }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: addressesKey }),
  });
}

/** Optimistic removal, put back when the server refuses. */
export function useRemoveSenderAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => api.delete<void>(`/settings/email/addresses/${encodeURIComponent(email)}`),
    onMutate: async (email) => {
      await queryClient.cancelQueries({ queryKey: addressesKey });
      const previous = queryClient.getQueryData<AddressList>(addressesKey);
      queryClient.setQueryData<AddressList>(addressesKey, (list) =>
        list ? { emails: list.emails.filter((item) => item.email !== email) } : list,
      );
      return { previous };
    },
    onError: (_error, _email, context) => {
      if (context?.previous) queryClient.setQueryData<AddressList>(addressesKey, context.previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: addressesKey }),
  });
}

/** The public page behind the verification mail's link: no session needed, a 401 here is not a lost session. */
export function useConfirmSender() {
  return useMutation({
    mutationFn: (token: string) =>
      api.post('/sender-verification', { token }, { schema: ConfirmSenderResponse }),
    meta: { keepSessionOn401: true },
  });
}

export function useSenderDomains() {
  return useQuery({
    queryKey: domainsKey,
    queryFn: () => api.get('/settings/email/domains', { schema: SenderDomainList }),
  });
}

export function useSenderDomain(id: number) {
  return useQuery({
    queryKey: domainKey(id),
    queryFn: () => api.get(`/settings/email/domains/${id}`, { schema: SenderDomainResponse }),
    enabled: Number.isInteger(id) && id > 0,
  });
}

/** Keeps the list and the domain's own page in step after a change to one domain. */
function storeDomain(queryClient: ReturnType<typeof useQueryClient>, domain: SenderDomain) {
  queryClient.setQueryData(domainKey(domain.id), { domain });
  queryClient.setQueryData<DomainList>(domainsKey, (list) =>
    list ? { domains: [...list.domains.filter((item) => item.id !== domain.id), domain] } : list,
  );
  void queryClient.invalidateQueries({ queryKey: domainsKey, exact: true });
  // A verified domain verifies the addresses on it.
  void queryClient.invalidateQueries({ queryKey: addressesKey });
}

export function useAddSenderDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) =>
      api.post('/settings/email/domains', { domain }, { schema: SenderDomainResponse }),
    onSuccess: ({ domain }) => storeDomain(queryClient, domain),
  });
}

export function useVerifySenderDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      api.post(`/settings/email/domains/${id}/verify`, undefined, { schema: VerifyDomainResponse }),
    onSuccess: ({ domain }) => storeDomain(queryClient, domain),
  });
}

export function useRemoveSenderDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<void>(`/settings/email/domains/${id}`),
    onSuccess: (_data, id) => {
      queryClient.setQueryData<DomainList>(domainsKey, (list) =>
        list ? { domains: list.domains.filter((item) => item.id !== id) } : list,
      );
      void queryClient.invalidateQueries({ queryKey: domainsKey, exact: true });
      void queryClient.invalidateQueries({ queryKey: addressesKey });
    },
  });
}
