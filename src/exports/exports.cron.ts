import type { RequestScope } from '../core/scope';
import { SWEEP_PER_TICK } from './exports.limits';
import { deleteExports, expiredExports } from './exports.repository';
import { deleteFiles } from './exports.storage';

/**
 * Every minute: deletes expired export jobs and their files, oldest first, SWEEP_PER_TICK at
 * most. Files go first, so a tick that fails halfway leaves rows that the next tick finds again
 * (a file deleted twice is no error). Answers how many jobs went.
 */
export async function sweepExpiredExports(scope: RequestScope): Promise<number> {
  const expired = await expiredExports(scope.db, scope.now, SWEEP_PER_TICK);
  await deleteFiles(
    scope.env,
    expired.flatMap((job) => (job.fileKey ? [job.fileKey] : [])),
  );
  await deleteExports(
    scope.db,
    expired.map((job) => job.id),
  );
  return expired.length;
}
