import * as v from 'valibot';
import { ApiError, badRequest } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { requireWellFormedText, toDetails } from '../core/validation';
import { cubeQuerySchema } from '../data-api/cube-query.schemas';
import { compileModelQuery } from '../data-api/data.service';
import { NoBuiltModel } from '../data-api/query-context';
import type { CubeQuery, NormalizedQuery } from '../semantic/query/query.types';
import { checkReportFields, type ReportFields } from '../semantic/query/report-fields';

/** The parts of a report body that depend on its query. */
interface QueryFields {
  jsonQuery?: string | null;
  sqlQuery?: string | null;
  fillMissingRows?: ReportFields['fillMissingRows'];
  periodComparisons?: unknown[] | null;
}

/** The computed fields sent must fit the query (when one is sent) and name known units and outputs. */
function checkFields(body: QueryFields, query: NormalizedQuery | null) {
  const fields: ReportFields = {
    fillMissingRows: body.fillMissingRows ?? null,
    periodComparisons: (body.periodComparisons ?? null) as ReportFields['periodComparisons'],
  };
  const errors = checkReportFields(fields, query);
  if (errors.length > 0) {
    throw badRequest(
      errors[0] as string,
      errors.map((message) => ({ path: message.split(/[:\s[.]/)[0] ?? '', message })),
    );
  }
}

/** JSON text of a query in Cube's query format (its shape, not yet its members). */
function parseQuery(text: string): CubeQuery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('jsonQuery is not JSON', [
      { path: 'jsonQuery', message: 'Expected a Cube query as JSON text' },
    ]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('jsonQuery is not a Cube query', [
      { path: 'jsonQuery', message: 'Expected a JSON object such as {"measures": ["orders.count"]}' },
    ]);
  }
  // The text's own escapes may spell a lone surrogate that the body's check could not see.
  requireWellFormedText(parsed, 'jsonQuery', 'jsonQuery');
  const shaped = v.safeParse(cubeQuerySchema, parsed);
  if (!shaped.success) {
    const details = toDetails(shaped.issues, 'jsonQuery');
    throw badRequest(`jsonQuery is not a Cube query: ${details[0]?.path} ${details[0]?.message}`, details);
  }
  return shaped.output;
}

/**
 * A report body whose query is checked against the deployment's data model (an unknown member,
 * operator or granularity is a 400 naming it) and whose `sqlQuery` becomes the SQL that query
 * compiles to in the deployment's dialect (before any viewer's row-level filters). Before the
 * deployment's first build there is no model to check it against: a query of Cube's shape is
 * taken as it is, its `sqlQuery` empty (never the client's), as Cube does (a client sets up its
 * workspace while its model builds); a load reports a query the model then does not fit as that chart's error. A
 * body without `jsonQuery` (or with null: not sent, as every field of Cube's report bodies)
 * passes as it is.
 */
export async function withCompiledQuery<B extends QueryFields | undefined>(
  scope: DeploymentScope,
  body: B,
): Promise<B> {
  if (!body) return body;
  const text = body.jsonQuery;
  if (typeof text !== 'string') {
    checkFields(body, null);
    return body;
  }
  const checked = await compiledQuery(scope, parseQuery(text));
  if (!checked) {
    checkFields(body, null);
    // Written, not left out (a null field is "not sent"): an update must not keep the SQL of
    // the query it replaces.
    return { ...body, sqlQuery: '' } as B;
  }
  checkFields(body, checked.normalized);
  return { ...body, sqlQuery: checked.compiled.sql } as B;
}

/**
 * The query checked and compiled against the serving model, or null while the deployment has
 * none; its faults are 400s on `jsonQuery`.
 */
async function compiledQuery(scope: DeploymentScope, query: CubeQuery) {
  try {
    return await compileModelQuery(scope, query);
  } catch (err) {
    if (err instanceof NoBuiltModel) return null;
    if (err instanceof ApiError && err.code === 'BAD_REQUEST') {
      throw badRequest(`jsonQuery: ${err.message}`, [{ path: 'jsonQuery', message: err.message }]);
    }
    throw err;
  }
}
