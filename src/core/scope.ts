import type { Clock } from './clock';
import type { Bindings, Db, ExportQueue, NotificationQueue, ReplicaView } from './env';
import type { AccountContext, AccountPrincipal } from './principal';

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
  /** Drizzle over the account's database (counted); `$client` is the raw binding, for runBatch. */
  db: Db;
  /** The same database as a raw (counted) D1 binding, for statements drizzle cannot express. */
  d1: D1Database;
  env: Bindings;
  /** The instant the request (or tick, or batch) began, read once from the platform's clock. */
  now: Date;
  ports: ScopePorts;
  /** Work that may finish after the answer (cache writes); runs on its own where there is no execution context. */
  waitUntil: (p: Promise<unknown>) => void;
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

/** The scope of a cron tick or queue batch: no principal, `now` given by the caller. */
export function backgroundScope(
  base: Pick<RequestScope, 'db' | 'd1' | 'env' | 'ports'> & { now?: Date },
  waitUntil: (p: Promise<unknown>) => void = () => {},
): RequestScope {
  return { ...base, now: base.now ?? base.ports.clock.now(), waitUntil };
}
