import { errorClasses, messages, type ErrorBody, type ErrorClassName } from '@herald/contracts';

/** An error with a status and a message meant for the user; the error handler turns it into ErrorBody. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly errorName: ErrorClassName,
    message: string,
    readonly details: Pick<ErrorBody, 'userMessage' | 'errorCode' | 'retryAfter' | 'extra'> = {},
  ) {
    super(message);
    this.statusCode = errorClasses[errorName];
  }

  toBody(): ErrorBody {
    return { statusCode: this.statusCode, name: this.errorName, message: this.message, ...this.details };
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new AppError('BadRequestError', message, extra ? { extra } : {});
export const unauthorized = (message: string = messages.notLoggedIn) => new AppError('AuthError', message);
export const forbidden = (message: string = messages.forbidden) => new AppError('ForbiddenError', message);
export const notFound = (message: string = messages.notFound) => new AppError('NotFoundError', message);
export const conflict = (message: string, errorCode?: string) =>
  new AppError('ConflictError', message, errorCode ? { errorCode } : {});
export const tooManyRequests = (retryAfter: number) =>
  new AppError('RateLimitError', messages.tooManyRequests, { retryAfter });
export const gone = (message: string) => new AppError('GoneError', message);
