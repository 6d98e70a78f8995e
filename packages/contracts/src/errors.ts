import { z } from 'zod';

/** The error object every failed API call returns (docs/api.md). */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  name: z.string(),
  message: z.string(),
  userMessage: z.string().optional(),
  errorCode: z.string().optional(),
  retryAfter: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
  shouldLog: z.boolean().optional(),
  remoteService: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Error classes and their HTTP statuses (docs/api.md). */
export const errorClasses = {
  BadRequestError: 400,
  AuthError: 401,
  RemoteAuthError: 401,
  PaymentRequiredError: 402,
  ForbiddenError: 403,
  DeactivatedError: 403,
  NotFoundError: 404,
  ConflictError: 409,
  GoneError: 410,
  UnprocessableError: 422,
  RateLimitError: 429,
  InternalError: 500,
  NotImplementedError: 500,
  ServiceError: 503,
  RetryableError: 503,
} as const;
export type ErrorClassName = keyof typeof errorClasses;
