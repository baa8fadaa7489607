import type { Context } from 'hono';
import * as v from 'valibot';
import { accountPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { deletedSchema, idParams } from '../core/validation';
import type { AppEnv } from '../env';
import { defineRoute, routes } from '../http/route';
import type { Catalogue, CatalogueKind } from './catalogues.repository';
import * as service from './catalogues.service';
import {
  ATTRIBUTES_PER_CATALOGUE,
  attributeSchema,
  createAttributeBody,
  createGroupBody,
  groupSchema,
  MINT_LIMITS,
  tenantItemParams,
  tenantParams,
  tenantSchema,
  updateGroupBody,
} from './embedding.schemas';

/**
 * Admin users (Bearer) and API keys of the account (which act as its admin) manage catalogues.
 * One factory serves the four catalogue route sets: groups and user attributes, account-wide
 * (/api/v1/groups, /api/v1/user-attributes) and per embed tenant (/api/v1/embed-tenants/{name}/…).
 */
const auth = 'adminOrApiKey' as const;

const noParams = v.object({});

/** Where a catalogue route set is mounted: the account-wide catalogue, or one tenant's. */
interface Place {
  /** Path of the collection inside the router. */
  path: string;
  tenant: boolean;
  tags: string[];
}

/** Per operation: its summary and operationId (the spec's E-numbers). */
interface OperationDoc {
  summary: string;
  description?: string;
  operationId?: string;
}

/** The path parameters of any catalogue route (a tenant's routes name it; item routes carry an id). */
type CatalogueParams = Partial<{ embedTenantName: string; id: number }>;

const catalogueOf = (c: Context<AppEnv>, params: CatalogueParams): Catalogue => ({
  accountId: accountPrincipal(c).account.id,
  tenant: params.embedTenantName ?? null,
});

/** A write to a catalogue: the account-wide one refuses deployment-scoped keys (403 KEY_SCOPE). */
const writableCatalogueOf = (c: Context<AppEnv>, params: CatalogueParams): Catalogue => {
  const catalogue = catalogueOf(c, params);
  service.requireCatalogueWrite(accountPrincipal(c), catalogue);
  return catalogue;
};

/** What every catalogue route declares alike: path, auth, summary/operationId and tags. */
const head = (place: Place, doc: OperationDoc, path = place.path) => ({
  path,
  auth,
  ...doc,
  tags: place.tags,
});

/** The path of one item of the collection at `place`. */
const itemPath = (place: Place) => `${place.path === '/' ? '' : place.path}/:id`;

const now = (c: Context<AppEnv>) => isoNow(c.get('clock'));

/** The groups of one catalogue: create, list, update, delete. */
function groupRoutes(place: Place, docs: Record<'create' | 'list' | 'update' | 'delete', OperationDoc>) {
  const _params = place.tenant ? tenantParams : noParams;
  const itemParams = place.tenant ? tenantItemParams : idParams;
  const _tenant404 = place.tenant ? [404] : [];
  return [
    createRoute(place, 'groups', docs.create),
    listRoute(place, 'groups', docs.list),
    defineRoute({
      method: 'patch',
      ...head(place, docs.update, itemPath(place)),
      params: itemParams,
      body: updateGroupBody,
      responses: { 200: groupSchema },
      errors: [403, 404, 409],
      handler: async (c, { params, body }) =>
        service.updateGroup(c.get('db'), writableCatalogueOf(c, params), params.id, body, now(c)),
    }),
    deleteRoute(place, 'groups', docs.delete),
  ];
}

/** The user attributes of one catalogue: list and delete, plus create where the spec has it. */
function attributeRoutes(
  place: Place,
  docs: { create?: OperationDoc; list: OperationDoc; delete: OperationDoc },
) {
  return [
    ...(docs.create ? [createRoute(place, 'attributes', docs.create)] : []),
    listRoute(place, 'attributes', docs.list),
    deleteRoute(place, 'attributes', docs.delete),
  ];
}

const itemSchemas = { groups: groupSchema, attributes: attributeSchema };
const createBodies = { groups: createGroupBody, attributes: createAttributeBody };

/** POST of a group or an attribute into one catalogue (a tenant's is created if new). */
function createRoute(place: Place, kind: CatalogueKind, doc: OperationDoc) {
  return defineRoute({
    method: 'post',
    ...head(place, doc),
    params: place.tenant ? tenantParams : noParams,
    body: createBodies[kind],
    responses: { 200: itemSchemas[kind] },
    errors: [403, 409],
    handler: async (c, { params, body }) =>
      service.createItem(c.get('db'), kind, writableCatalogueOf(c, params), body, now(c)),
  });
}

/** GET of one catalogue's groups or attributes, a page at a time: the same shape in every set. */
function listRoute(place: Place, kind: CatalogueKind, doc: OperationDoc) {
  return defineRoute({
    method: 'get',
    ...head(place, doc),
    params: place.tenant ? tenantParams : noParams,
    query: pageQuery,
    responses: { 200: pageSchema(itemSchemas[kind]) },
    errors: place.tenant ? [403, 404] : [403],
    handler: async (c, { params, query }) =>
      service.listItems(
        c.get('db'),
        kind,
        catalogueOf(c, params),
        pageRequest(query, service.cursorOf(kind), 1),
      ),
  });
}

/** DELETE of one group or attribute: the same shape in every set. */
function deleteRoute(place: Place, kind: CatalogueKind, doc: OperationDoc) {
  return defineRoute({
    method: 'delete',
    ...head(place, doc, itemPath(place)),
    params: place.tenant ? tenantItemParams : idParams,
    responses: { 200: deletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      service.deleteItem(c.get('db'), kind, writableCatalogueOf(c, params), params.id),
  });
}

const accountGroups: Place = { path: '/', tenant: false, tags: ['Embed groups (account-wide)'] };
const accountAttributes: Place = { path: '/', tenant: false, tags: ['User attributes (account-wide)'] };
const tenantTags = ['Embed tenants (E10–E14)'];

/** The account-wide group catalogue (contract §6), mounted at /api/v1/groups. */
export const groupsRoutes = routes(
  ...groupRoutes(accountGroups, {
    create: {
      summary: 'Create an account-wide group',
      description:
        'A deployment-scoped API key gets 403 KEY_SCOPE on every write to the account-wide catalogue.',
    },
    list: { summary: 'List account-wide groups' },
    update: { summary: 'Rename or describe an account-wide group' },
    delete: { summary: 'Delete an account-wide group and its memberships' },
  }),
);

/** The account-wide user-attribute catalogue (contract §6), mounted at /api/v1/user-attributes. */
export const userAttributesRoutes = routes(
  ...attributeRoutes(accountAttributes, {
    create: {
      summary: 'Define an account-wide user attribute',
      description: `A catalogue holds at most ${ATTRIBUTES_PER_CATALOGUE} user attributes (409 past it); \`defaultValue\` ≤ ${MINT_LIMITS.defaultValue} characters. A deployment-scoped API key gets 403 KEY_SCOPE.`,
    },
    list: { summary: 'List account-wide user attributes' },
    delete: { summary: 'Delete an account-wide user attribute and every stored value of it' },
  }),
);

/** Embed-tenant admin (E10–E14) and the tenant list, mounted at /api/v1/embed-tenants. */
export const embedTenantsRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/',
    auth,
    summary: 'List embed tenants',
    tags: tenantTags,
    query: pageQuery,
    responses: { 200: pageSchema(tenantSchema) },
    errors: [403],
    handler: async (c, { query }) =>
      service.listTenants(
        c.get('db'),
        accountPrincipal(c).account.id,
        pageRequest(query, 'embed-tenants', 1),
      ),
  }),
  ...groupRoutes(
    { path: '/:embedTenantName/groups', tenant: true, tags: tenantTags },
    {
      create: {
        summary: 'E10 Create an embed group in a tenant (the tenant is created if new)',
        operationId: 'createEmbedGroup',
      },
      list: { summary: 'E11 List the embed groups of a tenant', operationId: 'listEmbedGroups' },
      update: {
        summary: 'E12 Update an embed group (an empty description clears it; omitted keeps it)',
        operationId: 'updateEmbedGroup',
      },
      delete: { summary: 'E13 Delete an embed group and its memberships', operationId: 'deleteEmbedGroup' },
    },
  ),
  ...attributeRoutes(
    { path: '/:embedTenantName/user-attributes', tenant: true, tags: tenantTags },
    {
      list: { summary: 'E14 List the user attributes of a tenant', operationId: 'listEmbedUserAttributes' },
      delete: {
        summary: 'E14 Delete a user attribute of a tenant and every stored value of it',
        operationId: 'deleteEmbedUserAttribute',
      },
    },
  ),
);
