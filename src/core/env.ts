import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type { Clock } from './clock';
import type { QueryCounter } from './db';
import type { Principal } from './principal';

/** Messages of the builds queue. Ids only: the consumer reads the rest from D1. */
export type BuildMessage = { kind: 'build'; buildId: number };
/** Messages of the notifications queue (and its dead-letter queue): one run each. */
export type NotificationMessage = { kind: 'notification-run'; runId: number };

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

/** The bindings declared in wrangler.toml, plus the secrets set with `wrangler secret put`. */
export interface Bindings {
  DB: D1Database;
  /** Workers Static Assets: the pinned swagger-ui-dist package, served under /docs/assets. */
  ASSETS: Fetcher;
  SESSIONS: KVNamespace;
  BUILDS_QUEUE: Queue<BuildMessage>;
  NOTIFICATIONS_QUEUE: Queue<NotificationMessage>;
  SESSION_RATE_LIMITER: RateLimit;
  MAILER: SendEmail;
  DEPLOYMENTS_DOMAIN: string;
  ADMIN_TOKEN: string;
  SESSION_SIGNING_KEY: string;
  /** The key being rotated out: sessions signed with it still verify until they expire. */
  SESSION_SIGNING_KEY_PREVIOUS?: string;
  /** "1" adds x-d1-queries / x-d1-round-trips headers to every response (benchmarks only). */
  EXPOSE_DB_METRICS?: string;
  /** Encrypts the values of secret-named deployment env vars (AES-GCM; any high-entropy text). */
  ENV_VARS_KEY: string;
  /**
   * The embedded data store: one SQLite Durable Object per deployment (`DeploymentStore`).
   * Untyped here so core imports nothing above it; `src/sources/deployment-store.ts` types it.
   */
  DEPLOYMENT_STORE: DurableObjectNamespace;
  /** "1" lets data sources reach private, loopback and link-local addresses (local development and tests). */
  DATA_SOURCES_ALLOW_PRIVATE?: string;
  /** Comma-separated names of the Hyperdrive bindings a deployment may name in `CUBEJS_DB_HYPERDRIVE`. */
  HYPERDRIVE_BINDINGS?: string;
}

/** Drizzle over the request's counted D1 binding; `$client` is that binding, for runBatch. */
export type Db = DrizzleD1Database<Record<string, never>> & { $client: D1Database };

export interface Variables {
  requestId: string;
  /** Drizzle over the counting wrapper of env.DB. */
  db: Db;
  /** The raw (counted) D1 binding, for statements drizzle cannot express. */
  d1: D1Database;
  queries: QueryCounter;
  /** The request's platform boundaries (src/platform.ts), set once by the app's first middleware. */
  clock: Clock;
  sessionRateLimiter: RateLimit;
  notificationsQueue: NotificationQueue;
  replicaView: ReplicaView | undefined;
  principal: Principal;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
