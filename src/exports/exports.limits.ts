/**
 * The bounds of dashboard exports, in one place: they feed the route descriptions,
 * docs/exports.md and the decisions of the OpenAPI document.
 */

/** How long a job and its file live after it is started (Cube's `expiresAt`: 5 minutes). */
export const EXPORT_LIFETIME_SECONDS = 5 * 60;

/**
 * Jobs of one account queued or rendering at once (unexpired ones): a start beyond it is a 429.
 * A render is the heaviest work the Worker does; the bound keeps one account from filling the queue.
 */
export const MAX_EXPORTS_IN_FLIGHT = 5;

/** The `Retry-After` of that 429: a render takes seconds, so a slot frees soon. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 10;

/**
 * Renders one job may start. The queue delivers a message once more than this (wrangler.toml's
 * `max_retries` = this), so the last delivery records the failure of a job whose every attempt
 * died before it could.
 */
export const MAX_EXPORT_ATTEMPTS = 3;

/** Seconds before a failed render is retried: 10, 20, … (the queue's delay). */
export const RETRY_DELAY_SECONDS = 10;

/** Expired jobs (and their files) one cron tick deletes (R2 deletes ≤ 1000 keys a call); the rest wait for the next tick. */
export const SWEEP_PER_TICK = 500;

/** Characters of the `filename` stem a download takes. */
export const MAX_FILENAME_STEM = 100;

/** Characters of a job's `error` kept and answered. */
export const MAX_ERROR_TEXT = 1000;
