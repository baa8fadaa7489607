import * as v from 'valibot';
import type { CubeFilter, CubeQuery } from '../semantic/query/query.types';

/**
 * The shape of a Cube REST API query, bounded: what the semantic layer then checks against the
 * model (members, operators, date ranges). Unknown operators pass here as strings so the
 * answer can name them as Cube does ("Unknown operator: …").
 */
export const MAX_QUERY_MEMBERS = 100;
export const MAX_FILTER_VALUES = 1000;
export const MAX_FILTER_DEPTH = 5;
export const MAX_QUERIES_PER_REQUEST = 10;

const memberName = v.pipe(v.string(), v.minLength(1), v.maxLength(255));
const members = v.optional(v.pipe(v.array(memberName), v.maxLength(MAX_QUERY_MEMBERS)));
const filterValue = v.nullable(v.union([v.pipe(v.string(), v.maxLength(10_000)), v.number(), v.boolean()]));

/**
 * A filter at nesting depth `depth` (1 at the top of `filters`): a member filter, or an `and`/`or`
 * of the filters one level down, to `MAX_FILTER_DEPTH` levels. Each level's list is one named
 * schema of the OpenAPI document (`CubeFilterGroup2` … `CubeFilterGroup5`: what an `and` or `or`
 * holds at that depth), built once and shared by `and` and `or`.
 */
const filterLevels = new Map<number, v.GenericSchema<CubeFilter>>();
function filterSchema(depth: number): v.GenericSchema<CubeFilter> {
  const known = filterLevels.get(depth);
  if (known) return known;
  const leaf = v.strictObject({
    member: v.optional(memberName),
    dimension: v.optional(memberName),
    operator: v.pipe(v.string(), v.maxLength(64)),
    values: v.optional(v.pipe(v.array(filterValue), v.maxLength(MAX_FILTER_VALUES))),
  });
  let schema = leaf as v.GenericSchema<CubeFilter>;
  if (depth < MAX_FILTER_DEPTH) {
    const group = v.pipe(
      v.array(filterSchema(depth + 1)),
      v.maxLength(MAX_QUERY_MEMBERS),
      v.description(`The filters an \`and\` or \`or\` at nesting depth ${depth} combines.`),
      v.metadata({ ref: `CubeFilterGroup${depth + 1}` }),
    );
    schema = v.union([
      leaf,
      v.strictObject({ and: group }),
      v.strictObject({ or: group }),
    ]) as v.GenericSchema<CubeFilter>;
  }
  filterLevels.set(depth, schema);
  return schema;
}

const direction = v.picklist(['asc', 'desc']);

/** `[from, to]` (dates or timestamps) or a relative expression such as `last 7 days`. */
const dateRange = v.union([
  v.pipe(v.string(), v.maxLength(255)),
  v.tuple([v.pipe(v.string(), v.maxLength(64)), v.pipe(v.string(), v.maxLength(64))]),
]);

/**
 * A query's shape. `compare`: a time dimension may carry Cube's `compareDateRange` (a list of date
 * ranges, one query each), which only the Cube REST API's endpoints answer, for one query at a
 * time; everywhere else (reports, a list of queries) it is refused.
 */
const queryShape = (compare: boolean) =>
  v.object({
    measures: members,
    dimensions: members,
    segments: members,
    timeDimensions: v.optional(
      v.pipe(
        v.array(
          v.object({
            dimension: memberName,
            granularity: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
            dateRange: v.optional(v.nullable(dateRange)),
            compareDateRange: compare
              ? v.optional(v.pipe(v.array(dateRange), v.minLength(1), v.maxLength(MAX_QUERIES_PER_REQUEST)))
              : v.optional(
                  v.never('compareDateRange is answered only by the Cube REST API, in a single query'),
                ),
          }),
        ),
        v.maxLength(MAX_QUERY_MEMBERS),
      ),
    ),
    filters: v.optional(v.pipe(v.array(filterSchema(1)), v.maxLength(MAX_QUERY_MEMBERS))),
    order: v.optional(
      v.union([
        v.pipe(
          v.record(memberName, direction),
          v.check((o) => Object.keys(o).length <= MAX_QUERY_MEMBERS),
        ),
        v.pipe(v.array(v.tuple([memberName, direction])), v.maxLength(MAX_QUERY_MEMBERS)),
      ]),
    ),
    limit: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
    // Cube sets no maximum; past 2^53 - 1 a number is no longer an exact integer, and SQLite refuses
    // an OFFSET past 2^63 - 1 as a datatype mismatch, which read as the model's own SQL failing.
    offset: v.optional(
      v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
    ),
    total: v.optional(v.boolean()),
    timezone: v.optional(v.pipe(v.string(), v.maxLength(64))),
    ungrouped: v.optional(v.boolean()),
    renewQuery: v.optional(v.boolean()),
    // Cube's row objects, or its compact `{members, dataset}` (answered by the Cube REST API's /load).
    responseFormat: v.optional(v.picklist(['default', 'compact'])),
  }) as unknown as v.GenericSchema<CubeQuery>;

export const cubeQuerySchema: v.GenericSchema<CubeQuery> = queryShape(false);

/**
 * One query, or several answered together (Cube's data blending / `queryType=multi`). An array
 * is an object to valibot's `object`, so the one-query option refuses arrays before reading
 * them: a list with a bad query is reported at that query, not read as one query naming nothing.
 */
export const cubeQueriesSchema = v.union(
  [
    v.pipe(v.array(cubeQuerySchema), v.minLength(1), v.maxLength(MAX_QUERIES_PER_REQUEST)),
    v.pipe(
      v.custom<CubeQuery>((input) => !Array.isArray(input)),
      queryShape(true),
    ),
  ],
  `Expected a query object or a list of 1 to ${MAX_QUERIES_PER_REQUEST} of them`,
);
