import { messages, type ErrorBody } from '@herald/contracts';
import type { z } from 'zod';

/** HTTP time-out for every call (docs/web-app.md). */
export const requestTimeoutMs = 30_000;

/** A failed call to /v1, carrying the server's error object. */
export class ApiError extends Error {
  readonly body: ErrorBody;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.body = body;
  }

  get statusCode(): number {
    return this.body.statusCode;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export function isUnauthorized(error: unknown): boolean {
  return isApiError(error) && error.statusCode === 401;
}

/** The server's message in preference to the generic text (docs/web-app.md). */
export function errorMessage(error: unknown, fallback: string): string {
  if (isApiError(error)) return error.body.userMessage || error.body.message || fallback;
  return fallback;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface RequestOptions<T> {
  body?: unknown;
  /** Parse the success body with this contract schema. */
  schema?: z.ZodType<T>;
  signal?: AbortSignal;
}

function networkError(path: string, cause: unknown): ApiError {
  const timedOut =
    cause instanceof DOMException && (cause.name === 'AbortError' || cause.name === 'TimeoutError');
  return new ApiError({
    statusCode: 0,
    name: timedOut ? 'TimeoutError' : 'NetworkError',
    message: timedOut
      ? 'The server took too long to answer. Please try again.'
      : "We couldn't reach the server. Please check your internet connection and try again.",
    extra: { path },
  });
}

/** The API's error object (statusCode, name, message); checked by hand so the first page loads no validator. */
function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return (
    typeof body.statusCode === 'number' && typeof body.name === 'string' && typeof body.message === 'string'
  );
}

async function readErrorBody(response: Response): Promise<ErrorBody> {
  const fallback: ErrorBody = {
    statusCode: response.status,
    name: 'HttpError',
    message: response.status >= 500 ? messages.internal : `${response.status} ${response.statusText}`.trim(),
  };
  try {
    const body: unknown = await response.json();
    return isErrorBody(body) ? body : fallback;
  } catch {
    return fallback;
  }
}

/** Calls /v1{path} with cookies and JSON; statuses below 300 succeed and 204 resolves to undefined. */
export async function request<T = unknown>(
  method: Method,
  path: string,
  options: RequestOptions<T> = {},
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('Request timed out', 'TimeoutError')),
    requestTimeoutMs,
  );
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort);

  let response: Response;
  try {
    response = await fetch(`/v1${path}`, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      signal: controller.signal,
    });
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    throw networkError(path, cause);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }

  if (response.status >= 300) throw new ApiError(await readErrorBody(response));
  if (response.status === 204) return undefined as T;

  const text = await response.text();
  const data: unknown = text ? JSON.parse(text) : undefined;
  if (options.schema) {
    const parsed = options.schema.safeParse(data);
    if (!parsed.success) {
      // A shape mismatch is a bug to report, not a reason to break the screen.
      console.error(`Unexpected response shape for ${method} ${path}`, parsed.error);
      return data as T;
    }
    return parsed.data;
  }
  return data as T;
}

export const api = {
  get: <T = unknown>(path: string, options?: RequestOptions<T>) => request<T>('GET', path, options),
  post: <T = unknown>(path: string, body?: unknown, options?: RequestOptions<T>) =>
    request<T>('POST', path, { ...options, body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: RequestOptions<T>) =>
    request<T>('PATCH', path, { ...options, body }),
  put: <T = unknown>(path: string, body?: unknown, options?: RequestOptions<T>) =>
    request<T>('PUT', path, { ...options, body }),
  delete: <T = unknown>(path: string, options?: RequestOptions<T>) => request<T>('DELETE', path, options),
};
