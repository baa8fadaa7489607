import type * as v from 'valibot';
import type { WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope } from '../core/scope';
import { deletedSchema } from '../core/validation';
import type { HandlerResult, RouteGroup } from '../http/route';
import * as folders from './folders.service';
import { withCompiledQuery } from './report-query.service';
import * as reportSchemas from './reports.schemas';
import * as reports from './reports.service';
import * as workbooks from './workbooks.service';
import { presentFolder, presentItem, presentReport } from './workspace.present';
import type { ItemRecord } from './workspace.rows';
import * as schemas from './workspace.schemas';
import { deleteItem, viewItem } from './workspace.service';
import { listFolders, listReports, listWorkbooks } from './workspace-list.service';

/**
 * Cube gives every kind of workspace item (folders, workbooks, reports) the same routes. This
 * module serves them once, from what each kind is made of: the schemas it is answered and
 * written with, and its services.
 */
type Kind = WorkspaceItemType;

/** Per kind: the item as answered, the query of its list, the bodies of its create and update. */
const SCHEMAS = {
  FOLDER: { item: schemas.folderSchema, query: schemas.foldersQuery, create: schemas.createFolderBody },
  WORKBOOK: {
    item: schemas.workspaceItemSchema,
    query: schemas.workbooksQuery,
    create: schemas.createWorkbookBody,
  },
  REPORT: {
    item: reportSchemas.reportSchema,
    query: reportSchemas.reportsQuery,
    create: reportSchemas.createReportBody,
  },
} as const;
const UPDATE_BODIES = {
  FOLDER: schemas.updateFolderBody,
  WORKBOOK: schemas.updateWorkbookBody,
  REPORT: reportSchemas.updateReportBody,
} as const;

type SchemasOf<K extends Kind> = (typeof SCHEMAS)[K];
type Item<K extends Kind> = SchemasOf<K>['item'];
type CubeList<S extends v.GenericSchema> = ReturnType<typeof schemas.cubeListSchema<S>>;

/** A service of a deployment's workspace: the caller's scope first, then `Rest`. */
type InDeployment<Rest extends unknown[], Answer> = (
  scope: DeploymentScope,
  ...rest: Rest
) => Promise<Answer>;
type Body<S extends v.GenericSchema> = v.InferOutput<S>;

/** The services of one kind, typed by its schemas (checked below with `satisfies`). */
interface Services<K extends Kind> {
  list: InDeployment<[query: Body<SchemasOf<K>['query']>], v.InferInput<CubeList<Item<K>>>>;
  create: InDeployment<[body: Body<SchemasOf<K>['create']>], ItemRecord>;
  update: InDeployment<[id: number, body: Body<(typeof UPDATE_BODIES)[K]>], ItemRecord>;
  present: (rec: ItemRecord) => v.InferInput<Item<K>>;
}

const SERVICES = {
  FOLDER: {
    list: listFolders,
    create: folders.createFolder,
    update: folders.updateFolder,
    present: presentFolder,
  },
  WORKBOOK: {
    list: listWorkbooks,
    create: workbooks.createWorkbook,
    update: workbooks.updateWorkbook,
    present: presentItem,
  },
  REPORT: {
    list: listReports,
    create: reports.createReport,
    update: reports.updateReport,
    present: presentReport,
  },
} satisfies { [K in Kind]: Services<K> };

/**
 * Errors a create or an update may answer beyond 404: a workbook's slug or a report's publicId
 * taken (409), the storage quota (429).
 */
const WRITE_ERRORS: Record<Kind, number[]> = { FOLDER: [], WORKBOOK: [409, 429], REPORT: [409, 429] };

/**
 * The operationIds of the routes every kind has (Cube's, as `getFolders`, `createFolder`, `getFolder`,
 * `updateFolder`), written out by each kind's router so that a search for one finds where it is served.
 */
export interface ItemIds {
  list: string;
  create: string;
  get: string;
  update: string;
}

/**
 * The routes every kind has: GET / (list), POST / (create), GET /:id (get: records the caller's
 * view), PUT /:id (update) and, for workbooks and reports, DELETE /:id (a folder's delete has
 * rules of its own, in its router).
 */
export function itemRoutes<K extends Kind>(route: RouteGroup<'deployment'>, kind: K, ids: ItemIds) {
  const { item, query, create } = SCHEMAS[kind] as SchemasOf<K>;
  // The table above is checked per kind; indexing it with a generic K loses that link.
  const run = SERVICES[kind] as Services<K>;
  // `present` answers the item schema's input type, which TypeScript cannot see through a generic K.
  const answer = (rec: ItemRecord) => run.present(rec) as HandlerResult<{ 200: Item<K> }>;
  return [
    route.get('/', ids.list, schemas.cubeListSchema(item as Item<K>), {
      input: { params: schemas.deploymentParams, query },
      handler: async (_c, { query }, scope) =>
        (await run.list(scope, query)) as HandlerResult<{ 200: CubeList<Item<K>> }>,
    }),
    route.post('/', ids.create, item as Item<K>, {
      permission: 'WorkspaceEdit',
      input: { params: schemas.deploymentParams, body: create },
      errors: WRITE_ERRORS[kind],
      handler: async (_c, { body }, scope) =>
        answer(await run.create(scope, await checkedBody(scope, kind, body))),
    }),
    route.get('/:id', ids.get, item as Item<K>, {
      input: { params: schemas.itemParams },
      handler: async (_c, { params }, scope) => answer(await viewItem(scope, params.id, kind)),
    }),
    route.put('/:id', ids.update, item as Item<K>, {
      permission: 'WorkspaceEdit',
      input: { params: schemas.itemParams, body: UPDATE_BODIES[kind] as (typeof UPDATE_BODIES)[K] },
      errors: WRITE_ERRORS[kind],
      handler: async (_c, { params, body }, scope) =>
        answer(await run.update(scope, params.id, await checkedBody(scope, kind, body))),
    }),
  ] as const;
}

/** A report's query is checked against the data model, and its SQL derived, before it is written. */
function checkedBody<B>(scope: DeploymentScope, kind: Kind, body: B): Promise<B> {
  return kind === 'REPORT' ? withCompiledQuery(scope, body as never) : Promise.resolve(body);
}

type Keyed = 'WORKBOOK' | 'REPORT';

/** The kinds with a key of their own and Cube's upsert by it: PUT /by-slug/:slug and PUT /by-public-id/:publicId. */
const UPSERTS = {
  WORKBOOK: { key: 'slug', path: '/by-slug/:slug', params: schemas.slugParams },
  REPORT: { key: 'publicId', path: '/by-public-id/:publicId', params: reportSchemas.publicIdParams },
} as const;
const UPSERT_BODIES = {
  WORKBOOK: schemas.upsertWorkbookBody,
  REPORT: reportSchemas.createReportBody,
} as const;

type Upsert<K extends Keyed> = InDeployment<[key: string, body: Body<(typeof UPSERT_BODIES)[K]>], ItemRecord>;
const UPSERT_SERVICES = {
  WORKBOOK: workbooks.upsertWorkbookBySlug,
  REPORT: reports.upsertReportByPublicId,
} satisfies { [K in Keyed]: Upsert<K> };

/** The operationIds of a workbook's or a report's routes: those of every kind, the upsert and the delete. */
export interface KeyedItemIds extends ItemIds {
  upsert: string;
  delete: string;
}

/**
 * The routes of a workbook or a report: the upsert by its key (first, so that a key such as
 * "favorite" never reaches a `/:id/…` route), those of every kind, and DELETE /:id.
 */
export function keyedItemRoutes<K extends Keyed>(
  route: RouteGroup<'deployment'>,
  kind: K,
  ids: KeyedItemIds,
) {
  return [
    upsertRoute(route, kind, ids.upsert),
    ...itemRoutes(route, kind, ids),
    deleteRoute(route, kind, ids.delete),
  ] as const;
}

function upsertRoute<K extends Keyed>(route: RouteGroup<'deployment'>, kind: K, operationId: string) {
  const { key, path, params } = UPSERTS[kind] as (typeof UPSERTS)[K];
  const run = UPSERT_SERVICES[kind] as Upsert<K>;
  return route.put(path, operationId, SCHEMAS[kind].item as Item<K>, {
    permission: 'WorkspaceEdit',
    input: { params, body: UPSERT_BODIES[kind] as (typeof UPSERT_BODIES)[K] },
    errors: [409, 429],
    handler: async (_c, input, scope) => {
      const body = await checkedBody(scope, kind, input.body);
      const rec = await run(scope, input.params[key as never], body);
      return SERVICES[kind].present(rec) as HandlerResult<{ 200: Item<K> }>;
    },
  });
}

/** DELETE /:id of a workbook or a report: the item, and for a workbook its dashboard and versions. */
function deleteRoute(route: RouteGroup<'deployment'>, kind: 'WORKBOOK' | 'REPORT', operationId: string) {
  return route.delete('/:id', operationId, deletedSchema, {
    permission: 'WorkspaceEdit',
    input: { params: schemas.itemParams },
    handler: async (_c, { params }, scope) => deleteItem(scope, params.id, kind),
  });
}

/** PUT and DELETE /:id/favorite: marks or unmarks a workbook as a favourite of the caller. */
export function favoriteRoutes(route: RouteGroup<'deployment'>) {
  const setTo = (on: boolean) => ({
    input: { params: schemas.itemParams },
    handler: async (_c: unknown, { params }: { params: { id: number } }, scope: DeploymentScope) =>
      presentItem(await workbooks.setFavorite(scope, params.id, on)),
  });
  return [
    route.put('/:id/favorite', 'favoriteWorkbook', schemas.workspaceItemSchema, setTo(true)),
    route.delete('/:id/favorite', 'unfavoriteWorkbook', schemas.workspaceItemSchema, setTo(false)),
  ] as const;
}
