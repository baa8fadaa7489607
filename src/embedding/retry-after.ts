import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../core/errors';

/**
 * A 429 that tells the caller when to come back. The shared error handler does not know
 * Retry-After yet, so the route that calls a throwing service sets the header (see
 * `withRetryAfter`); the header survives the error handler's response.
 */
export class RetryLaterError extends ApiError {
  constructor(
    code: Extract<ErrorCode, 'RATE_LIMITED' | 'QUOTA_EXCEEDED'>,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
  }
}

export const retryLater = (
  code: Extract<ErrorCode, 'RATE_LIMITED' | 'QUOTA_EXCEEDED'>,
  message: string,
  seconds: number,
): RetryLaterError => new RetryLaterError(code, message, seconds);

/** Runs `work`; a RetryLaterError it throws leaves with its `Retry-After` header set. */
export async function withRetryAfter<T>(c: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RetryLaterError) c.header('Retry-After', String(error.retryAfterSeconds));
    throw error;
  }
}
