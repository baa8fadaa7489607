/**
 * What a deployment serves (its serving build's model and its data source), as an isolate last
 * read it: the data API reuses it for SERVING_STATE_TTL_MS, so a load finds its cached answer
 * with no D1 read at all. The change of another isolate (a build that finished, data source
 * settings saved, the deployment deleted) is seen once the bound has passed; a change made in
 * this isolate is seen at once (`forgetServingState`).
 */

import { MAX_CACHED_MODELS } from './built-models';

/**
 * How long an isolate serves from what it read: the staleness a model or data source change may
 * see on other isolates. Cube's default `refresh_key` (10 s) already lets an answer be that old.
 */
export const SERVING_STATE_TTL_MS = 10_000;
/**
 * Deployments kept per isolate, the least recently read going first. Each entry holds its
 * compiled model, so this is the isolate's bound on models kept.
 */
const MAX_KEPT = MAX_CACHED_MODELS;

interface Kept {
  accountId: number;
  /** When it was read (the reading request's `now`, in ms). */
  readAt: number;
  state: unknown;
}

const kept = new Map<number, Kept>();

/**
 * The state `remember` kept for the account's deployment, while it is fresh at `now`. A state
 * read "later" than `now` (a clock moved back) is not fresh: it is read again.
 */
export function recallServingState<T>(accountId: number, deploymentId: number, now: Date): T | undefined {
  const entry = kept.get(deploymentId);
  if (!entry || entry.accountId !== accountId) return undefined;
  const age = now.getTime() - entry.readAt;
  return age >= 0 && age < SERVING_STATE_TTL_MS ? (entry.state as T) : undefined;
}

/** Keeps a deployment's state as read at `readAt`, the instant of the request that read it. */
export function rememberServingState(accountId: number, deploymentId: number, readAt: Date, state: unknown) {
  kept.delete(deploymentId);
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as number);
  kept.set(deploymentId, { accountId, readAt: readAt.getTime(), state });
}

/** Drops what this isolate keeps of a deployment: its build, data source or existence changed. */
export function forgetServingState(deploymentId: number): void {
  kept.delete(deploymentId);
}
