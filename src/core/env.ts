import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type { QueryCounter } from './db';
import type { Principal } from './principal';
import type { RequestScope } from './scope';

/** Messages of the builds queue. Ids only: the consumer reads the rest from D1. */
export type BuildMessage = { kind: 'build'; buildId: number };
/**
 * A step of an operator's move of an account to another shard (src/accounts/move-steps.service.ts):
 * the move and the version of it the step drives. Sent on the builds queue.
 */
export type MoveMessage = { kind: 'account-move'; moveId: number; version: number };

/** The producer call the steps of account moves go through (the builds queue; tests pass a recorder). */
export interface MoveQueue {
  send(body: MoveMessage, options?: QueueSendOptions): Promise<unknown>;
}

/** Messages of the notifications queue (and its dead-letter queue): one run each. */
export type NotificationMessage = { kind: 'notification-run'; runId: number };

/** Messages of the dashboard exports queue: one export job each, by its row id. */
export type ExportMessage = { kind: 'dashboard-export'; exportId: number };

/** The producer call export jobs go through (a Queue binding fits; tests pass a recorder). */
export interface ExportQueue {
  send(body: ExportMessage): Promise<unknown>;
}

/**
 * Messages of the pre-aggregations queue: register a deployment's partitions for its serving
 * build (a plan), or build one partition at the version its claim took. Ids only, with `shard`,
 * the shard whose row it names: a moved account's rows keep the ids they were made with on its
 * old shard, so the id alone no longer says where they live.
 */
export type PreAggregationMessage =
  | { kind: 'pre-aggregation-plan'; deploymentId: number; version: number; shard?: number }
  | { kind: 'pre-aggregation-build'; partitionId: number; version: number; shard?: number };

/** The producer call pre-aggregation work goes through (a Queue binding fits; tests pass a recorder). */
export interface PreAggregationQueue {
  sendBatch(messages: Iterable<MessageSendRequest<PreAggregationMessage>>): Promise<unknown>;
}

/** The two producer calls notification runs go through (a Queue binding fits; tests pass a recorder). */
export interface NotificationQueue {
  send(body: NotificationMessage): Promise<unknown>;
  sendBatch(messages: Iterable<MessageSendRequest<NotificationMessage>>): Promise<unknown>;
}

/**
 * What a D1 read replica answers for a read it made: in production, what it read; a test makes
 * a replica lag by answering an older or altered read.
 */
export type ReplicaView = <T>(read: T) => T;

/**
 * The secrets, set with `wrangler secret put` (locally in .dev.vars, in tests by vitest.config.ts):
 * wrangler.toml does not list them, so the generated types do not either.
 */
export interface Secrets {
  ADMIN_TOKEN: string;
  SESSION_SIGNING_KEY: string;
  /** The key being rotated out: sessions signed with it still verify until they expire. */
  SESSION_SIGNING_KEY_PREVIOUS?: string;
  /** Encrypts the values of secret-named deployment env vars (AES-GCM; any high-entropy text). */
  ENV_VARS_KEY: string;
  /** "1" adds x-d1-queries / x-d1-round-trips headers to every response (benchmarks only). */
  EXPOSE_DB_METRICS?: string;
  /** "1" lets data sources reach private, loopback and link-local addresses (local development and tests). */
  DATA_SOURCES_ALLOW_PRIVATE?: string;
}

/**
 * The Worker's environment: the bindings of wrangler.toml as `npm run types` generates them
 * (`WranglerBindings`, in worker-configuration.d.ts), with each queue's message type, plus the
 * secrets. Among them: DEPLOYMENTS_DOMAIN (deployment URLs are https://<slug>.<domain>),
 * HYPERDRIVE_BINDINGS (comma-separated Hyperdrive bindings a deployment may name in
 * `CUBEJS_DB_HYPERDRIVE`), ASSETS (the pinned swagger-ui-dist package, served under /docs/assets)
 * and DEPLOYMENT_STORE (one SQLite Durable Object per deployment, the embedded data store).
 */
export interface Bindings
  extends Omit<
      WranglerBindings,
      'BUILDS_QUEUE' | 'NOTIFICATIONS_QUEUE' | 'EXPORTS_QUEUE' | 'PRE_AGGREGATIONS_QUEUE'
    >,
    Secrets {
  BUILDS_QUEUE: Queue<BuildMessage | MoveMessage>;
  NOTIFICATIONS_QUEUE: Queue<NotificationMessage>;
  EXPORTS_QUEUE: Queue<ExportMessage>;
  PRE_AGGREGATIONS_QUEUE: Queue<PreAggregationMessage>;
}

/** Drizzle over the request's counted D1 binding; `$client` is that binding, for runBatch. */
export type Db = DrizzleD1Database<Record<string, never>> & { $client: D1Database };

/**
 * A request run again on the shard a moved account lives on (src/auth/forwards.ts): where, and
 * what it carries over from its first run (its id, and the counters its metrics headers sum).
 */
export interface Replay {
  shard: number;
  /** Runs on another shard so far: one per move the request's hint followed. */
  hops: number;
  requestId: string;
  queries: QueryCounter;
  controlQueries: QueryCounter;
}

export interface Variables {
  requestId: string;
  /** Drizzle over the counting wrapper of the request's shard (src/core/shards.ts). */
  db: Db;
  /** The raw (counted) D1 binding, for statements drizzle cannot express. */
  d1: D1Database;
  queries: QueryCounter;
  /** What the request cost the control database (`scope.control`). */
  controlQueries: QueryCounter;
  principal: Principal;
  /** The request's scope (src/core/scope.ts), set once by the app's first middleware. */
  scope: RequestScope;
  /** Runs a request through the whole app (a request sent on to the shard a moved account lives on). */
  dispatch: (request: Request) => Promise<Response>;
  /** Set when this request is one sent on to the shard a moved account lives on (src/auth/forwards.ts). */
  replay: Replay | undefined;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
