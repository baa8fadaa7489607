import { eq } from 'drizzle-orm';
import { builds } from '../../schema/deployments';
import type { Db } from '../core/env';
import type { CompiledModel } from '../semantic/model/model.types';

/**
 * Compiled models by build. A build never changes once built, so an isolate reads each model
 * once, whoever asks for it: the data API serving queries, the pre-aggregation refresh planning
 * and building rollups, the Orchestration API. At most MAX_CACHED_MODELS are kept, the oldest
 * read dropped first.
 */
const models = new Map<number, CompiledModel>();
export const MAX_CACHED_MODELS = 50;

/**
 * The compiled model of build `buildId`, which the caller read in a statement of its own (checked
 * against the caller's account); null for a build without one.
 */
export async function modelOfBuild(db: Db, buildId: number): Promise<CompiledModel | null> {
  const known = models.get(buildId);
  if (known) return known;
  const rows = await db
    .select({ model: builds.compiledModel })
    .from(builds)
    .where(eq(builds.id, buildId))
    .limit(1);
  const model = (rows[0]?.model ?? null) as CompiledModel | null;
  if (!model) return null;
  if (models.size >= MAX_CACHED_MODELS) models.delete(models.keys().next().value as number);
  models.set(buildId, model);
  return model;
}
