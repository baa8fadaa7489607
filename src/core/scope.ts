import type { Clock } from './clock';
import { CONTROL_DATABASE, countedD1, createDb, shardOf } from './db';
import type {
  Bindings,
  Db,
  ExportQueue,
  MoveQueue,
  NotificationQueue,
  PreAggregationQueue,
  ReplicaView,
} from './env';
import type { AccountContext, AccountPrincipal } from './principal';
import type { Timings } from './timings';

/**
 * The platform boundaries a service may reach besides its database: resolved once per request
 * (or tick, or message batch) from the Worker's platform (`src/platform.ts`), never swapped
 * globally.
 */
export interface ScopePorts {
  clock: Clock;
  /** Guards sessions minted per API key (the SESSION_RATE_LIMITER binding in production). */
  sessionRateLimiter: RateLimit;
  /** Where notification runs are enqueued. */
  notificationsQueue: NotificationQueue;
  /** Where dashboard export jobs are enqueued. */
  exportsQueue: ExportQueue;
  /** Where the steps of account moves are enqueued. */
  movesQueue: MoveQueue;
  /** Where pre-aggregation plans and partition builds are enqueued. */
  preAggregationsQueue: PreAggregationQueue;
  /** What a D1 read replica answers for a read it made; absent (production): what it read. */
  replicaView?: ReplicaView;
}

/**
 * The one context every service is called with: where to read and write, when it is, and the
 * platform. A route gets it from its route group (`scope: 'request' | 'account' |
 * 'deployment'`), a cron tick or queue batch from `backgroundScope`; services never read Hono's
 * context, and time is always a `Date` (`now`), turned into text only where it is stored.
 */
export interface RequestScope {
  /**
   * The shard `db` and `d1` are (src/core/shards.ts): shard 0 until the request's credential
   * names another (src/auth/shard-routing.ts); a tick or batch runs once per shard.
   */
  shard: number;
  /** Drizzle over the account's database (counted); `$client` is the raw binding, for runBatch. */
  db: Db;
  /** The same database as a raw (counted) D1 binding, for statements drizzle cannot express. */
  d1: D1Database;
  /**
   * The control database (schema/control.ts): the account directory, the shards' loads and the
   * names unique across shards. Counted apart from `db`; a request with a credential reads none of it.
   */
  control: Db;
  env: Bindings;
  /** The instant the request (or tick, or batch) began, read once from the platform's clock. */
  now: Date;
  ports: ScopePorts;
  /** Work that may finish after the answer (cache writes); runs on its own where there is no execution context. */
  waitUntil: (p: Promise<unknown>) => void;
  /** The request's time by phase, when EXPOSE_DB_METRICS asks for it (benchmarks only). */
  timings?: Timings;
}

/** A request of an account's user or API key. */
export interface AccountScope extends RequestScope {
  accountId: number;
  account: AccountContext;
  principal: AccountPrincipal;
}

/**
 * A request about one of the account's deployments (the path's `deploymentId`), already checked
 * against an API key's deployment scope. Every repository query filters by the account through
 * the deployment, so another account's deployment (or anything in it) is a 404. `userId` is who
 * acts: the token's user, or the account's first admin for an API key.
 */
export interface DeploymentScope extends AccountScope {
  deploymentId: number;
  userId: number;
}

/**
 * The scope of a cron tick or queue batch: no principal, `now` given by the caller, the shard of
 * its `d1`, and the control database unless given.
 */
export function backgroundScope(
  base: Pick<RequestScope, 'db' | 'd1' | 'env' | 'ports'> & { now?: Date; control?: Db },
  waitUntil: (p: Promise<unknown>) => void = () => {},
): RequestScope {
  return {
    ...base,
    shard: shardOf(base.d1),
    control:
      base.control ??
      createDb(countedD1(base.env.CONTROL_DB, { queries: 0, roundTrips: 0 }, CONTROL_DATABASE)),
    now: base.now ?? base.ports.clock.now(),
    waitUntil,
  };
}
