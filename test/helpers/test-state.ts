import type { Clock } from '../../src/core/clock';
import type { ExportQueue, MoveQueue, PreAggregationQueue, ReplicaView } from '../../src/core/env';
import type { DeliveryPorts } from '../../src/notifications/delivery';
import type { RollupCompiler } from '../../src/pre-aggregations/rollup-compiler';

/**
 * What a test or a test file sets for itself, kept apart from the helpers that use it. Test files
 * run one after another in a shared runtime (vitest.config.ts), which evaluates each helper module
 * once for all of them, so a hook a helper registered at its top level would run in the first
 * file alone. test/setup.ts, which runs in every file, empties this state instead: after each test
 * (the platform) and after each file (the answer checks). It imports types only, so the set-up
 * loads nothing of the Worker for it.
 */

/** The boundaries a test puts in place of the deployed ones; what it leaves unset stays real. */
export interface TestPlatform {
  clock?: Clock;
  deliveryPorts?: Partial<DeliveryPorts>;
  exportsQueue?: ExportQueue;
  movesQueue?: MoveQueue;
  preAggregationsQueue?: PreAggregationQueue;
  rollupCompiler?: RollupCompiler;
  sessionRateLimiter?: RateLimit;
  replicaView?: ReplicaView;
}

/**
 * The platform of the running test: a test sets a boundary on it (`platform.clock =
 * clockAt(…)`), and every request (`api`), cron tick and queue batch it sends afterwards runs on
 * it. It is emptied after each test, so nothing carries over to the next one.
 */
export const platform: TestPlatform = {};

export function resetPlatform(): void {
  for (const key of Object.keys(platform)) delete platform[key as keyof TestPlatform];
}

/** A further check every answer must pass; reads a clone of `res` if it reads the body. */
export type AnswerCheck = (method: string, url: string, res: Response) => Promise<void>;

/** The checks the running test file added (test/helpers/http.ts); emptied after each file. */
export const answerChecks: AnswerCheck[] = [];

export function resetAnswerChecks(): void {
  answerChecks.length = 0;
}

/** How many test files this runtime has started, the running one included (test/setup.ts). */
let filesStarted = 0;

/** Counts the file starting now; answers how many ran before it in this runtime. */
export function startFile(): number {
  filesStarted += 1;
  return filesStarted - 1;
}
