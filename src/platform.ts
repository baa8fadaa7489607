import { type Clock, systemClock } from './core/clock';
import type { Bindings, ExportQueue, MoveQueue, PreAggregationQueue, ReplicaView } from './core/env';
import type { ScopePorts } from './core/scope';
import { type DeliveryPorts, deliveryPorts } from './notifications/delivery';
import { type RollupCompiler, rollupCompiler } from './pre-aggregations/rollup-compiler';

/**
 * The platform boundaries the Worker works through besides its plain bindings: the clock, the
 * delivery ports of notifications (queue, renderer, mailer, chat webhook), the queue of dashboard
 * exports, the rate limiter of minted sessions and what a D1 read replica answers. Resolved once
 * per request (and per scheduled tick or queue batch) by the `platformOf` the Worker was created
 * with (`createWorker` in `src/worker.ts`), and handed down as values, so nothing swaps them
 * globally: a test or an embedder builds its own Worker on its own platform.
 */
export interface Platform {
  clock: Clock;
  deliveryPorts: DeliveryPorts;
  /** Where dashboard export jobs are enqueued (the EXPORTS_QUEUE binding in production). */
  exportsQueue: ExportQueue;
  /** Where the steps of the operator's account moves are enqueued (the BUILDS_QUEUE binding in production). */
  movesQueue: MoveQueue;
  /** Where pre-aggregation plans and partition builds are enqueued (PRE_AGGREGATIONS_QUEUE in production). */
  preAggregationsQueue: PreAggregationQueue;
  /** The semantic layer's side of pre-aggregation builds (a test hands in one that fails). */
  rollupCompiler: RollupCompiler;
  /** Guards sessions minted per API key (the SESSION_RATE_LIMITER binding in production). */
  sessionRateLimiter: RateLimit;
  /** What a replica answers for a read it made; absent (production): what it read. */
  replicaView?: ReplicaView;
}

/** Resolves the platform of one request or invocation from its environment. */
export type PlatformOf = (env: Bindings) => Platform;

/** The deployed platform: the system clock and the environment's bindings. */
export const platformOf: PlatformOf = (env) => ({
  clock: systemClock,
  deliveryPorts: deliveryPorts(env),
  exportsQueue: env.EXPORTS_QUEUE,
  movesQueue: env.BUILDS_QUEUE,
  preAggregationsQueue: env.PRE_AGGREGATIONS_QUEUE,
  rollupCompiler,
  sessionRateLimiter: env.SESSION_RATE_LIMITER,
});

/** The platform's boundaries as a scope carries them. */
export const portsOf = (platform: Platform): ScopePorts => ({
  clock: platform.clock,
  sessionRateLimiter: platform.sessionRateLimiter,
  notificationsQueue: platform.deliveryPorts.queue,
  exportsQueue: platform.exportsQueue,
  movesQueue: platform.movesQueue,
  preAggregationsQueue: platform.preAggregationsQueue,
  replicaView: platform.replicaView,
});
