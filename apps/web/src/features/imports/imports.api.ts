import {
  Import,
  ImportCreated,
  ImportList,
  ImportUploadUrl,
  importMessages,
  type ColumnMapping,
  type existingPeopleStrategies,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, isApiError } from '../../lib/api.ts';
import { fieldsKey } from '../people/people.api.ts';
import { tagsKey } from '../tags/tags.api.ts';

export const importsKey = ['imports'] as const;
export const importsListKey = ['imports', 'list'] as const;
export const importKey = (id: number) => ['imports', 'one', id] as const;

/** Poll once a second while an import is running. */
export const importPollMs = 1000;

export const importListMessages = {
  loadOne: 'Error while loading your import.',
  loadList: 'Error while loading your imports.',
  downloadFailed: "Couldn't download the failed rows.",
} as const;

export type ExistingPeopleStrategy = (typeof existingPeopleStrategies)[number];

export const isRunning = (imp: Import) =>
  imp.status === 'queued' || imp.status === 'parsing' || imp.status === 'importing';

/** GET /v1/imports; a not-found answer is an empty list (docs/imports.md). */
export function useImports(options: { enabled?: boolean } = {}) {
  return useQuery({
    enabled: options.enabled ?? true,
    queryKey: importsListKey,
    queryFn: async ({ signal }) => {
      try {
        return await api.get('/imports', { schema: ImportList, signal });
      } catch (error) {
        if (isApiError(error) && error.statusCode === 404) return { imports: [] };
        throw error;
      }
    },
    refetchInterval: (query) => (query.state.data?.imports.some(isRunning) ? importPollMs : false),
  });
}

export function useImport(id: number, options: { enabled?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: importKey(id),
    queryFn: async ({ signal }) => {
      const imp = await api.get(`/imports/${id}`, { schema: Import, signal });
      // Once finished, the people, tags and fields it wrote are worth reloading.
      if (!isRunning(imp)) {
        void queryClient.invalidateQueries({ queryKey: ['people'] });
        void queryClient.invalidateQueries({ queryKey: tagsKey });
        void queryClient.invalidateQueries({ queryKey: fieldsKey });
      }
      return imp;
    },
    enabled: (options.enabled ?? true) && Number.isInteger(id) && id > 0,
    refetchInterval: (query) => (query.state.data && !isRunning(query.state.data) ? false : importPollMs),
    retry: (count, error) => !(isApiError(error) && error.statusCode === 404) && count < 2,
  });
}

export interface CreateImportInput {
  name?: string;
  peopleFileKey: string;
  numPeople: number;
  fieldMapping: ColumnMapping[];
  tags: string[];
  existingPeopleStrategy: ExistingPeopleStrategy;
  alreadyConfirmed?: boolean;
}

export function useCreateImport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateImportInput) => api.post('/imports', body, { schema: ImportCreated }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: importsKey });
    },
  });
}

/** POST /v1/imports/upload-url. */
export async function getUploadUrl(): Promise<{ url: string; key: string }> {
  try {
    return await api.post('/imports/upload-url', undefined, { schema: ImportUploadUrl });
  } catch (error) {
    throw new ApiError({
      statusCode: isApiError(error) ? error.statusCode : 0,
      name: 'UploadUrlError',
      message: importMessages.uploadUrlFailed,
      // A missing permission says so; anything else is the generic text.
      ...(isApiError(error) && error.statusCode === 403 ? { userMessage: error.message } : {}),
    });
  }
}

/**
 * PUT the file to the upload URL without credentials, reporting progress (fetch cannot report
 * upload progress, XMLHttpRequest can). Resolves when the server answered 2xx.
 */
export function uploadFile(
  url: string,
  file: Blob,
  options: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.withCredentials = false;
    xhr.setRequestHeader('content-type', 'text/csv');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress?.(event.total ? event.loaded / event.total : 1);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        options.onProgress?.(1);
        resolve();
        return;
      }
      let message: string = importMessages.couldNotProcess;
      try {
        const body = JSON.parse(xhr.responseText) as { message?: unknown };
        if (typeof body.message === 'string' && body.message) message = body.message;
      } catch {
        // not JSON: keep the generic text
      }
      reject(new ApiError({ statusCode: xhr.status, name: 'UploadError', message }));
    };
    xhr.onerror = () =>
      reject(
        new ApiError({
          statusCode: 0,
          name: 'NetworkError',
          message: "We couldn't reach the server. Please check your internet connection and try again.",
        }),
      );
    xhr.onabort = () => reject(new DOMException('Upload stopped', 'AbortError'));
    options.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

/** GET /v1/imports/{id}/failures as a file download (the cookie goes with a same-origin link). */
export function failuresUrl(id: number): string {
  return `/v1/imports/${id}/failures`;
}
