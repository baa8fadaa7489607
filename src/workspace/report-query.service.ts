import type { Context } from 'hono';
import type { DeploymentScope } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { ApiError, badRequest } from '../core/errors';
import { compileModelQuery } from '../data-api/data.service';
import type { CubeQuery } from '../semantic/query/query.types';

/** The parts of a report body that depend on its query. */
interface QueryFields {
  jsonQuery?: string | null;
  sqlQuery?: string | null;
}

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
  return parsed as CubeQuery;
}

/**
 * A report body whose query is checked against the deployment's data model (an unknown member,
 * operator or granularity is a 400 naming it) and whose `sqlQuery` becomes the SQL that query
 * compiles to in the deployment's dialect (before any viewer's row-level filters). A body
 * without `jsonQuery` (or with null: not sent, as every field of Cube's report bodies) passes
 * as it is.
 */
export async function withCompiledQuery<B extends QueryFields | undefined>(
  c: Context<AppEnv>,
  scope: DeploymentScope,
  body: B,
): Promise<B> {
  const text = body?.jsonQuery;
  if (typeof text !== 'string') return body;
  const query = parseQuery(text);
  try {
    const { compiled } = await compileModelQuery(
      {
        db: c.get('db'),
        env: c.env,
        accountId: scope.accountId,
        deploymentId: scope.deploymentId,
        now: c.get('clock').now(),
      },
      query,
    );
    return { ...body, sqlQuery: compiled.sql } as B;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'BAD_REQUEST') {
      throw badRequest(`jsonQuery: ${err.message}`, [{ path: 'jsonQuery', message: err.message }]);
    }
    throw err;
  }
}
