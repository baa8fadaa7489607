/**
 * The bounds of notifications' background work and stored values, in one place: they feed the
 * route descriptions, docs/notifications.md and the decisions of the OpenAPI document.
 */

/** Due notifications one cron tick claims; the rest stay due and the next tick claims them. */
export const CLAIM_PER_TICK = 500;
/** Due notifications read per claim page (one read and one claim batch each). */
export const CLAIM_PAGE = 250;
/** Queued runs whose message may be lost, enqueued again per tick. */
export const REQUEUE_PER_TICK = 100;

/**
 * Subrequests one queue-consumer invocation may make: the Workers Free plan's limit (Paid
 * allows 1000). Designing to the smaller one keeps the Worker deployable on either plan.
 */
export const SUBREQUESTS_PER_INVOCATION = 50;
/** Of those, kept for D1 round trips and the continuation message (≤ 5 per run attempt). */
export const SUBREQUESTS_RESERVED = 10;
/** Deliveries (each one email send or one webhook POST) one invocation sends at most. */
export const SENDS_PER_INVOCATION = SUBREQUESTS_PER_INVOCATION - SUBREQUESTS_RESERVED;

/** How long a chat webhook POST may take before it is abandoned (and retried with backoff). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Recipients one notification may have (each run sends at most this many messages). */
export const MAX_RECIPIENTS_PER_NOTIFICATION = 100;

/** Deliveries each item of `GET …/runs` carries; the rest are on `GET …/runs/{runId}/deliveries`. */
export const RUN_DELIVERIES_PREVIEW = 20;

/** `filters` of one notification, and the length of a filter's `value`. */
export const MAX_FILTERS = 100;
export const MAX_FILTER_VALUE = 4096;
/** `timeGrains` of one notification. */
export const MAX_TIME_GRAINS = 50;
/** `memberSwitchers` per notification. */
export const MAX_MEMBER_SWITCHERS = 50;
/** Items of a list filter value (and of a list user-attribute value). */
export const MAX_FILTER_VALUE_ITEMS = 100;
/** Entries of one `DELETE …/recipients` request (Cube's 1–1000). */
export const MAX_REMOVE_RECIPIENTS = 1000;
/** Member names (`cube.member`) in filters and time grains. */
export const MAX_MEMBER_NAME = 255;
/** An embed recipient's `securityContext`: depth and bytes of its JSON. */
export const SECURITY_CONTEXT_LIMITS = { maxDepth: 8, maxBytes: 16 * 1024 };
/** An embed recipient's `groups` and `userAttributes`. */
export const MAX_RECIPIENT_GROUPS = 100;
export const MAX_RECIPIENT_ATTRIBUTES = 100;
