import { emailMessages } from '@herald/contracts';

/** Which part of an email a merge tag sits in. */
export type EmailPart = 'subject' | 'preheader' | 'html';

/** A merge-tag problem: a syntax error, an unknown filter, a limit reached. Its message names the part and the line. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    readonly part: EmailPart,
    readonly line: number | undefined,
    readonly detail: string,
  ) {
    super(emailMessages.templateError(part === 'html' ? 'content' : part, line, detail));
  }
}

interface LiquidLikeError {
  message: string;
  token?: { getPosition?: () => [number, number] };
  originalError?: unknown;
}

/** A Liquid error as a TemplateError: the position comes from the token, the detail is the message without it. */
export function toTemplateError(part: EmailPart, error: unknown, lineOffset = 0): TemplateError {
  if (error instanceof TemplateError) return error;
  const liquid = error as LiquidLikeError;
  const position = typeof liquid?.token?.getPosition === 'function' ? liquid.token.getPosition() : undefined;
  const raw = typeof liquid?.message === 'string' ? liquid.message : String(error);
  const detail = raw.replace(/, line:\d+, col:\d+$/, '').trim() || 'the merge tag could not be read';
  const line = position ? Math.max(1, position[0] - lineOffset) : undefined;
  return new TemplateError(part, line, detail);
}
