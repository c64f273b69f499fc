import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/**
 * The one error type the domain throws. `http/errors.ts` alone maps `kind` to an HTTP status;
 * `code` is a stable snake_case identifier clients may branch on.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'payment_required'
  | 'not_found'
  | 'precondition_failed'
  | 'conflict'
  | 'unprocessable'
  | 'limit'
  | 'rate_limited'
  | 'upstream'
  | 'not_implemented'
  | 'internal';

export class AppError extends Error {
  constructor(
    public readonly kind: ErrorKind,
    public readonly code: ErrorCode,
    message: string,
    public readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; body?: Record<string, unknown> },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'AppError';
    this.body = options?.body;
  }
  /**
   * Top-level fields the hosted API puts beside `error` and `code` for this error (the 412's `success`
   * and `scopeStatus`); the route declares them in its response schema.
   */
  public readonly body?: Record<string, unknown>;
}

export const invalid = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  new AppError('invalid', code, message, details);

/** 400 naming the offending fields the way validation failures do (`details.fields`). */
export const invalidFields = (
  message: string,
  fields: Record<string, string[]>,
  code: ErrorCode = 'validation_error',
) => new AppError('invalid', code, message, { fields });

export const notFound = (what: string, code: ErrorCode = 'not_found') =>
  new AppError('not_found', code, `${what} not found`);

export const forbidden = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  new AppError('forbidden', code, message, details);

export const conflict = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  new AppError('conflict', code, message, details);
