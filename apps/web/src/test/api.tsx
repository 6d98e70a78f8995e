import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { vi } from 'vitest';

/** A query client for one test: no retries, and data set up front is fresh for the whole test (nothing refetched). */
export function testQueryClient(data: [queryKey: readonly unknown[], value: unknown][] = []): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: { retry: false, staleTime: Infinity, gcTime: Infinity },
      mutations: { retry: false },
    },
  });
  for (const [key, value] of data) client.setQueryData(key, value);
  return client;
}

/** A `wrapper` for renderHook: the hook under test gets `client`. */
export function withQueryClient(client: QueryClient) {
  return function QueryWrapper({ children }: { children: ReactNode }) {
    return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  };
}

/** One call the app made to the API: its method, its path under /v1 and its JSON body. */
export interface ApiCall {
  method: string;
  path: string;
  body: unknown;
}

/** What the stand-in answers: a status (200 unless said) and a JSON body. */
export interface ApiAnswer {
  status?: number;
  body?: unknown;
}

/**
 * Puts a stand-in for `fetch` in place for the test: every call is recorded in the returned list and answered by
 * `answer`. Undo with `vi.unstubAllGlobals()` after the test.
 */
export function stubApi(answer: (call: ApiCall) => ApiAnswer | Promise<ApiAnswer>): ApiCall[] {
  const calls: ApiCall[] = [];
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const call = {
      method: init.method ?? 'GET',
      path: String(input).replace(/^\/v1/, ''),
      body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
    };
    calls.push(call);
    const { status = 200, body = {} } = await answer(call);
    return new Response(status === 204 ? null : JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  return calls;
}
