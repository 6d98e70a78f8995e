import {
  BulkEraseResponse,
  ErasePersonResponse,
  EventRetention,
  EventRetentionResponse,
  PersonExport,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { personKey } from './people.api.ts';

/** Save a JSON document as a file the browser downloads. */
export function downloadJson(document_: unknown, fileName: string): void {
  const blob = new Blob([JSON.stringify(document_, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** POST /v1/people/:id/export (a POST: the server records each export in the audit log), saved as person-{id}.json. */
export function useExportPerson() {
  return useMutation({
    mutationFn: (id: number) => api.post(`/people/${id}/export`, undefined, { schema: PersonExport }),
    onSuccess: (document_, id) => downloadJson(document_, `person-${id}.json`),
  });
}

/** Forget what the app knew of erased people: their page, searches, segments' counts, the suppression list. */
function useForgetPeople() {
  const queryClient = useQueryClient();
  return (ids: number[]) => {
    for (const id of ids) queryClient.removeQueries({ queryKey: personKey(id) });
    void queryClient.invalidateQueries({ queryKey: ['people'] });
    void queryClient.invalidateQueries({ queryKey: ['suppressions'] });
    void queryClient.invalidateQueries({ queryKey: ['segments'] });
  };
}

/** POST /v1/people/:id/erase. */
export function useErasePerson() {
  const forget = useForgetPeople();
  return useMutation({
    mutationFn: (id: number) => api.post(`/people/${id}/erase`, undefined, { schema: ErasePersonResponse }),
    onSuccess: (_result, id) => forget([id]),
  });
}

/** POST /v1/people/erase with the CSV's text. */
export function useBulkErase() {
  const forget = useForgetPeople();
  return useMutation({
    mutationFn: (csv: string) => api.post('/people/erase', { csv }, { schema: BulkEraseResponse }),
    onSuccess: () => forget([]),
  });
}

const retentionKey = ['privacy', 'event-retention'] as const;

export function useEventRetention(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: retentionKey,
    queryFn: () => api.get('/privacy/event-retention', { schema: EventRetention }),
    enabled: options.enabled ?? true,
  });
}

export function useSetEventRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (months: number | null) =>
      api.patch(
        '/privacy/event-retention',
        { eventRetentionMonths: months },
        { schema: EventRetentionResponse },
      ),
    onSuccess: (result) =>
      queryClient.setQueryData(retentionKey, { eventRetentionMonths: result.eventRetentionMonths }),
  });
}
