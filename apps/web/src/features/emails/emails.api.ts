import {
  DuplicateEmailResponse,
  EmailList,
  EmailResponse,
  EmailTemplateList,
  RenderedEmail,
  TestEmailResponse,
  type CreateEmailBody,
  type Email,
  type EmailDraft,
} from '@herald/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export type ArchivedFilter = 'false' | 'true';
export const emailsKey = ['emails'] as const;
const listKey = (archived: ArchivedFilter) => ['emails', 'list', archived] as const;
const emailKey = (id: number) => ['emails', 'one', id] as const;

export function useEmails(archived: ArchivedFilter, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: listKey(archived),
    queryFn: () => api.get(`/emails?archived=${archived}`, { schema: EmailList }),
    enabled: options.enabled ?? true,
  });
}

export function useEmail(id: number) {
  return useQuery({
    queryKey: emailKey(id),
    queryFn: () => api.get(`/emails/${id}`, { schema: EmailResponse }),
    enabled: Number.isInteger(id) && id > 0,
  });
}

export function useEmailTemplates(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['emails', 'templates'],
    queryFn: () => api.get('/emails/templates', { schema: EmailTemplateList }),
    staleTime: Infinity,
    enabled: options.enabled ?? true,
  });
}

function useInvalidateEmails() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: emailsKey });
    void queryClient.invalidateQueries({ queryKey: ['folders', 'emails'] });
  };
}

export function useCreateEmail() {
  const invalidate = useInvalidateEmails();
  return useMutation({
    mutationFn: (body: CreateEmailBody) => api.post('/emails', body, { schema: EmailResponse }),
    onSuccess: invalidate,
  });
}

export type EmailChanges = Partial<
  Pick<
    Email,
    | 'name'
    | 'subject'
    | 'preheader'
    | 'fromName'
    | 'fromEmail'
    | 'replyTo'
    | 'categoryId'
    | 'html'
    | 'editor'
    | 'archived'
  >
>;

export function useUpdateEmail() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateEmails();
  return useMutation({
    scope: { id: 'emails' },
    mutationFn: ({ id, changes }: { id: number; changes: EmailChanges }) =>
      api.patch(`/emails/${id}`, changes, { schema: EmailResponse }),
    onSuccess: (data) => {
      queryClient.setQueryData(emailKey(data.email.id), data);
      invalidate();
    },
  });
}

export function useDuplicateEmail() {
  const invalidate = useInvalidateEmails();
  return useMutation({
    mutationFn: (body: { emailId: number; targetAccountId?: number }) =>
      api.post('/emails/duplication', body, { schema: DuplicateEmailResponse }),
    onSuccess: invalidate,
  });
}

/** The draft as a person (or sample data) would get it; re-runs as the draft changes, keeping the last result on screen. */
export function usePreview(draft: EmailDraft | null, personId: number | null) {
  return useQuery({
    queryKey: ['emails', 'preview', draft, personId],
    queryFn: ({ signal }) =>
      api.post(
        '/emails/preview',
        { email: draft, ...(personId ? { personId } : {}) },
        { schema: RenderedEmail, signal },
      ),
    enabled: draft !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useSendTestEmail() {
  return useMutation({
    mutationFn: (body: { email: EmailDraft; sendTo: string[]; personId?: number }) =>
      api.post('/emails/test', body, { schema: TestEmailResponse }),
  });
}
