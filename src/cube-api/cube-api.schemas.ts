import * as v from 'valibot';
import { cubeQueriesSchema } from '../data-api/cube-query.schemas';
import { GRANULARITIES } from '../semantic/model/model.types';

export const loadBody = v.object({
  query: cubeQueriesSchema,
  queryType: v.optional(v.picklist(['multi', 'regularQuery'])),
});

export const loadQueryString = v.object({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(16_384)),
  queryType: v.optional(v.picklist(['multi', 'regularQuery'])),
});

export const sqlQueryString = v.object({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(16_384)),
});

/**
 * Cube's `?extended` adds each cube's pre-aggregations: only its presence counts, as Cube reads it,
 * so its value (or values) is never read.
 */
export const metaQueryString = v.object({ extended: v.optional(v.unknown()) });

export const GRANULARITY_NAMES = GRANULARITIES;

/** Answers are Cube's objects; documented loosely (their members depend on the model). */
const looseObject = v.looseObject({});
export const loadResponseSchema = looseObject;
export const metaResponseSchema = v.object({ cubes: v.array(v.unknown()) });
export const sqlResponseSchema = v.looseObject({ sql: v.unknown() });
export const dryRunResponseSchema = v.looseObject({
  queryType: v.string(),
  normalizedQueries: v.array(looseObject),
});
