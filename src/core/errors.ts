import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The closed set of error codes and the status each maps to. A handler fails by throwing
 * `new ApiError(CODE, message)`; one error handler renders the API's error envelope.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_CURSOR: 400,
  /** The tenant's own model SQL failed on its data source. */
  QUERY_FAILED: 400,
  UNAUTHORIZED: 401,
  SESSION_INVALID: 401,
  SESSION_EXPIRED: 401,
  SESSION_REVOKED: 401,
  FORBIDDEN: 403,
  PLAN_NOT_ALLOWED: 403,
  KEY_SCOPE: 403,
  EMBED_DISABLED: 403,
  /** The account restricts data downloads (its app config's restrictDataDownload). */
  DOWNLOAD_RESTRICTED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** The download of a dashboard export whose render failed: terminal, start another export. */
  EXPORT_FAILED: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  INTERNAL: 500,
  /** The account is being moved to another shard by the operator: its writes wait until the move ends. */
  ACCOUNT_MOVING: 503,
  /** The deployment's data source could not be reached, or refused the connection. */
  DATA_SOURCE_ERROR: 502,
  /** A query ran longer than its time limit on the data source. */
  QUERY_TIMEOUT: 504,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** What an error tells the client beyond its body. */
export interface ApiErrorOptions {
  /** Rendered as `Retry-After` (seconds) by the one error handler; meant for 429 and 503. */
  retryAfterSeconds?: number;
}

/**
 * Every 429 carries `Retry-After`; one thrown without a hint gets this many seconds (the
 * per-minute windows of the rate limits and quotas).
 */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * A full quota (external users, stored bytes) does not free itself with time: users or content
 * are removed, or the operator raises the limit. Its Retry-After says "not soon" rather than
 * inviting a retry loop.
 */
export const QUOTA_RETRY_AFTER_SECONDS = 3600;

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
    if (options.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
    }
  }
}

/**
 * A 429: `RATE_LIMITED` (too many requests in a window) or `QUOTA_EXCEEDED` (a stored limit).
 * `retryAfterSeconds` becomes the `Retry-After` header.
 */
export const tooManyRequests = (
  code: 'RATE_LIMITED' | 'QUOTA_EXCEEDED',
  message: string,
  retryAfterSeconds: number = DEFAULT_RETRY_AFTER_SECONDS,
): ApiError => new ApiError(code, message, undefined, { retryAfterSeconds });

/** The `Retry-After` header an error answers with, if any: every 429 has one. */
export function retryAfterOf(err: ApiError): string | undefined {
  if (err.retryAfterSeconds !== undefined) return String(err.retryAfterSeconds);
  return err.status === 429 ? String(DEFAULT_RETRY_AFTER_SECONDS) : undefined;
}

/** The 404 of a resource that does not exist; it names the resource, so code can tell which. */
export class NotFoundError extends ApiError {
  constructor(readonly resource: string) {
    super('NOT_FOUND', `${resource} not found`);
  }
}

export const notFound = (what = 'Resource'): NotFoundError => new NotFoundError(what);

/** `value` when there is one (a row found), else the 404 of `what`. */
export function orNotFound<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

/** Whether `err` is the 404 `notFound(what)` builds (not another resource's 404). */
export const isNotFound = (err: unknown, what: string): boolean =>
  err instanceof NotFoundError && err.resource === what;
export const badRequest = (message: string, details?: ErrorDetail[]): ApiError =>
  new ApiError('BAD_REQUEST', message, details);
export const conflict = (message: string): ApiError => new ApiError('CONFLICT', message);

/** The API's error body. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  requestId: string;
  details?: ErrorDetail[];
}

export function errorBody(err: ApiError, requestId: string): ErrorBody {
  const body: ErrorBody = { error: err.message, code: err.code, requestId };
  if (err.details && err.details.length > 0) body.details = err.details;
  return body;
}

/**
 * Any thrown value as an ApiError. Constraint failures that SQL guards did not pre-empt (two
 * writers racing) are conflicts, not server faults; anything unknown is a 500 that says nothing
 * about internals.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException && err.status < 500) {
    return new ApiError(
      err.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
      err.message || 'Bad request',
    );
  }
  const message = String((err as Error)?.message ?? err);
  if (message.includes('UNIQUE constraint failed')) {
    return new ApiError('CONFLICT', 'Conflicts with an existing resource; retry or choose another value');
  }
  if (message.includes('FOREIGN KEY constraint failed')) {
    return new ApiError('CONFLICT', 'Refers to a resource that no longer exists, or is still referenced');
  }
  return new ApiError('INTERNAL', 'Internal error');
}
