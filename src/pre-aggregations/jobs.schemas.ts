import * as v from 'valibot';
import { isKnownTimeZone } from '../core/time-zone';
import { MAX_TIMEZONES } from './pre-aggregations.limits';

/** Tokens one `get` may ask about, and partitions one `post` may claim. */
export const MAX_JOB_TOKENS = 1_000;
export const MAX_JOB_PARTITIONS = 1_000;

const name = v.pipe(v.string(), v.minLength(1), v.maxLength(255));

/**
 * Cube's Orchestration API selector: which pre-aggregations to build. `contexts` are security
 * contexts (a deployment's rollups are the same for every context here: one store per
 * deployment), `timezones` the zones to build, `cubes` and `preAggregations` narrow the choice.
 */
export const jobsSelectorSchema = v.strictObject({
  contexts: v.pipe(
    v.array(v.object({ securityContext: v.optional(v.record(v.string(), v.unknown())) })),
    v.minLength(1),
    v.maxLength(100),
  ),
  timezones: v.pipe(
    v.array(v.pipe(v.string(), v.maxLength(64), v.check(isKnownTimeZone, 'Unknown time zone'))),
    v.minLength(1),
    v.maxLength(MAX_TIMEZONES),
  ),
  cubes: v.optional(v.pipe(v.array(name), v.maxLength(100))),
  preAggregations: v.optional(v.pipe(v.array(name), v.maxLength(100))),
  dataSources: v.optional(v.pipe(v.array(v.picklist(['default'])), v.maxLength(1))),
});

export type JobsSelector = v.InferOutput<typeof jobsSelectorSchema>;

export const jobsBody = v.variant('action', [
  v.strictObject({ action: v.literal('post'), selector: jobsSelectorSchema }),
  v.strictObject({
    action: v.literal('get'),
    tokens: v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.minLength(1), v.maxLength(MAX_JOB_TOKENS)),
    resType: v.optional(v.picklist(['object'])),
  }),
]);

const jobStatus = v.object({
  table: v.pipe(v.string(), v.description("Cube's table name of the partition")),
  status: v.pipe(
    v.string(),
    v.description(
      '`scheduled`, `processing`, `done`, `failure: <message>`, or `missing_partition` (an unknown token, or a partition no longer planned)',
    ),
  ),
  selector: v.object({
    cubes: v.array(v.string()),
    preAggregations: v.array(v.string()),
    contexts: v.array(v.unknown()),
    timezones: v.array(v.string()),
    dataSources: v.array(v.string()),
  }),
});

/** `post` answers the job tokens; `get` each token's status. */
export const jobsResponseSchema = v.union([v.array(v.string()), v.record(v.string(), jobStatus)]);
