import { MailboxList, MailboxMessage } from '@herald/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export function useMailbox(enabled: boolean) {
  return useQuery({
    queryKey: ['dev-mailbox'],
    queryFn: () => api.get('/dev/mailbox', { schema: MailboxList }),
    enabled,
    refetchInterval: 5_000,
  });
}

export function useMailboxMessage(id: number | null) {
  return useQuery({
    queryKey: ['dev-mailbox', id],
    queryFn: () => api.get(`/dev/mailbox/${id}`, { schema: MailboxMessage }),
    enabled: id !== null,
  });
}
