import type * as v from 'valibot';
import { type DeploymentScope, inDeployment, nowOf } from '../auth/deployment-scope';
import type { Db } from '../core/env';
import { deletedSchema } from '../core/validation';
import type { HandlerResult, RouteGroup } from '../http/route';
import type { ItemRecord } from './workspace.repository';
import { cubeListSchema, deploymentParams, itemParams, workspaceItemSchema } from './workspace.schemas';
import { deleteItem, presentItem, setFavorite, viewItem } from './workspace.service';

const LABEL = { FOLDER: 'Folder', WORKBOOK: 'Workbook', REPORT: 'Report' } as const;
type Kind = keyof typeof LABEL;
type CubeList<S extends v.GenericSchema> = ReturnType<typeof cubeListSchema<S>>;

/** What one kind of item brings to the routes every kind has: its schemas and its services. */
export interface ItemApi<
  S extends v.GenericSchema,
  Q extends v.GenericSchema,
  C extends v.GenericSchema,
  U extends v.GenericSchema,
> {
  list: {
    query: Q;
    run: (db: Db, scope: DeploymentScope, query: v.InferOutput<Q>) => Promise<v.InferInput<CubeList<S>>>;
  };
  create: {
    body: C;
    run: (db: Db, scope: DeploymentScope, body: v.InferOutput<C>, now: string) => Promise<ItemRecord>;
    errors?: number[];
  };
  update: {
    body: U;
    run: (
      db: Db,
      scope: DeploymentScope,
      id: number,
      body: v.InferOutput<U>,
      now: string,
    ) => Promise<ItemRecord>;
    errors?: number[];
  };
}

/**
 * The routes Cube gives every kind of workspace item (folders, workbooks, reports), answering
 * the item as `schema` (a stored record shown by `present`), with Cube's
 * operationIds: GET / (getFolders), POST / (createFolder), GET /:id (getFolder: records the
 * caller's view), PUT /:id (updateFolder) and, for workbooks and reports, DELETE /:id
 * (deleteWorkbook; a folder's delete has rules of its own and its own route).
 */
export function itemRoutes<
  S extends v.GenericSchema,
  Q extends v.GenericSchema,
  C extends v.GenericSchema,
  U extends v.GenericSchema,
>(
  route: RouteGroup,
  kind: Kind,
  schema: S,
  present: (rec: ItemRecord) => v.InferInput<S>,
  item: ItemApi<S, Q, C, U>,
) {
  const label = LABEL[kind];
  // `present` answers the schema's input type, which TypeScript cannot see through a generic S.
  const answer = (rec: ItemRecord) => present(rec) as HandlerResult<{ 200: S }>;
  const routes = [
    route.get('/', `get${label}s`, {
      input: { params: deploymentParams, query: item.list.query },
      responses: { 200: cubeListSchema(schema) },
      handler: async (c, { params, query }) =>
        (await item.list.run(...inDeployment(c, params), query)) as HandlerResult<{ 200: CubeList<S> }>,
    }),
    route.post('/', `create${label}`, {
      input: { params: deploymentParams, body: item.create.body },
      responses: { 200: schema },
      errors: item.create.errors,
      handler: async (c, { params, body }) =>
        answer(await item.create.run(...inDeployment(c, params), body, nowOf(c))),
    }),
    route.get('/:id', `get${label}`, {
      input: { params: itemParams },
      responses: { 200: schema },
      handler: async (c, { params }) =>
        answer(await viewItem(...inDeployment(c, params), params.id, kind, nowOf(c))),
    }),
    route.put('/:id', `update${label}`, {
      input: { params: itemParams, body: item.update.body },
      responses: { 200: schema },
      errors: item.update.errors,
      handler: async (c, { params, body }) =>
        answer(await item.update.run(...inDeployment(c, params), params.id, body, nowOf(c))),
    }),
  ] as const;
  return routes;
}

/** DELETE /:id of a workbook or a report: the item, and for a workbook its dashboard and versions. */
export function deleteRoute(route: RouteGroup, kind: 'WORKBOOK' | 'REPORT') {
  return route.delete('/:id', `delete${LABEL[kind]}`, {
    input: { params: itemParams },
    responses: { 200: deletedSchema },
    handler: async (c, { params }) => deleteItem(...inDeployment(c, params), params.id, kind),
  });
}

/** PUT and DELETE /:id/favorite: marks or unmarks a workbook as a favourite of the caller. */
export function favoriteRoutes(route: RouteGroup) {
  return (['put', 'delete'] as const).map((method) =>
    route[method]('/:id/favorite', method === 'put' ? 'favoriteWorkbook' : 'unfavoriteWorkbook', {
      input: { params: itemParams },
      responses: { 200: workspaceItemSchema },
      handler: async (c, { params }) =>
        presentItem(await setFavorite(...inDeployment(c, params), params.id, method === 'put', nowOf(c))),
    }),
  );
}
