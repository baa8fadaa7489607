import * as v from 'valibot';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { deletedSchema, idParams, withoutNulls } from '../core/validation';
import { apiDocs, type RouteGroup, routeGroup, routes } from '../http/route';
import type { CatalogueKind, CatalogueScope } from './catalogues.repository';
import markdown from './catalogues.routes.md';
import {
  attributeListQuery,
  attributeSchema,
  createAttributeBody,
  createGroupBody,
  embedUserSchema,
  groupMembersBody,
  groupSchema,
  MEMBERS_PER_REQUEST,
  membersAddedSchema,
  membersRemovedSchema,
  provisionUserBody,
  provisionUsersBody,
  provisionUsersSchema,
  tenantDeletedSchema,
  tenantItemParams,
  tenantListQuery,
  tenantParams,
  tenantSchema,
  USERS_PER_PROVISION,
  updateAttributeBody,
  updateGroupBody,
  userListQuery,
} from './catalogues.schemas';
import * as service from './catalogues.service';
import { ATTRIBUTES_PER_CATALOGUE, MINT_LIMITS } from './embedding.schemas';
import * as provision from './provision.service';

/**
 * Admin users (Bearer) and API keys of the account (which act as its admin) manage catalogues.
 * One factory serves the four catalogue route sets: groups and user attributes, account-wide
 * (/api/v1/groups, /api/v1/user-attributes) and per embed tenant (/api/v1/embed-tenants/{name}/…).
 * Every catalogue route may answer 403 (a deployment-scoped key writing the account-wide catalogue).
 */
const docs = apiDocs(markdown, {
  ATTRIBUTES_PER_CATALOGUE,
  'MINT_LIMITS.defaultValue': MINT_LIMITS.defaultValue,
  MEMBERS_PER_REQUEST,
  USERS_PER_PROVISION,
});
const catalogueRoute = (tags: string[]) =>
  routeGroup({ auth: 'user', permission: 'EmbeddingManage', scope: 'account', tags, errors: [403], docs });

/** Where a catalogue route set is mounted: the account-wide catalogue, or one tenant's. */
interface Place {
  /** Path of the collection inside the router. */
  path: string;
  tenant: boolean;
  route: RouteGroup<'account'>;
}

/** The path parameters of any catalogue route (a tenant's routes name it; item routes carry an id). */
type CatalogueParams = Partial<{ embedTenantName: string; id: number }>;

/** The catalogue a route's path names: a tenant's, or the account-wide one. */
const catalogueOf = (scope: AccountScope, params: CatalogueParams): CatalogueScope => ({
  ...scope,
  tenant: params.embedTenantName ?? null,
});

/** A write to a catalogue: the account-wide one refuses deployment-scoped keys (403 KEY_SCOPE). */
const writableCatalogueOf = (scope: AccountScope, params: CatalogueParams): CatalogueScope => {
  const catalogue = catalogueOf(scope, params);
  service.requireCatalogueWrite(catalogue);
  return catalogue;
};

/** The path of one item of the collection at `place`, and the parameters of the collection and of an item. */
const itemPath = (place: Place) => `${place.path === '/' ? '' : place.path}/:id`;
const collectionParams = (place: Place) => (place.tenant ? tenantParams : v.object({}));
const itemParams = (place: Place) => (place.tenant ? tenantItemParams : idParams);

/** The operationIds of one catalogue's group routes, written out where the catalogue is mounted. */
interface GroupIds {
  create: string;
  list: string;
  get: string;
  members: string;
  update: string;
  delete: string;
}

/** The groups of one catalogue: create, list, get, members, update, delete. */
function groupRoutes(place: Place, ids: GroupIds) {
  return [
    createRoute(place, 'groups', ids.create),
    listRoute(place, 'groups', ids.list),
    place.route.get(itemPath(place), ids.get, groupSchema, {
      input: { params: itemParams(place) },
      errors: [404],
      handler: async (_c, { params }, scope) => service.getGroup(catalogueOf(scope, params), params.id),
    }),
    place.route.get(`${itemPath(place)}/users`, ids.members, pageSchema(embedUserSchema), {
      input: { params: itemParams(place), query: pageQuery },
      errors: [404],
      handler: async (_c, { params, query }, scope) =>
        service.listGroupMembers(
          catalogueOf(scope, params),
          params.id,
          pageRequest(query, 'embed-group-members', 1),
        ),
    }),
    ...(place.tenant ? memberRoutes(place) : []),
    place.route.patch(itemPath(place), ids.update, groupSchema, {
      input: { params: itemParams(place), body: updateGroupBody },
      errors: [404, 409],
      handler: async (_c, { params, body }, scope) =>
        service.updateGroup(writableCatalogueOf(scope, params), params.id, withoutNulls(body)),
    }),
    deleteRoute(place, 'groups', ids.delete),
  ];
}

/** Cube's addGroupMembers and removeGroupMembers (tenant groups only: members are the tenant's users). */
function memberRoutes(place: Place) {
  const path = `${itemPath(place)}/users`;
  const input = { params: tenantItemParams, body: groupMembersBody };
  return [
    place.route.post(path, 'addGroupMembers', membersAddedSchema, {
      input,
      errors: [404],
      handler: async (_c, { params, body }, scope) =>
        service.addGroupMembers(catalogueOf(scope, params), params.id, body.members),
    }),
    place.route.delete(path, 'removeGroupMembers', membersRemovedSchema, {
      input,
      errors: [404],
      handler: async (_c, { params, body }, scope) =>
        service.removeGroupMembers(catalogueOf(scope, params), params.id, body.members),
    }),
  ];
}

/** The user attributes of one catalogue: list and delete, plus create and update where the spec has them. */
function attributeRoutes(
  place: Place,
  ids: { create?: string; update?: string; list: string; delete: string },
) {
  return [
    ...(ids.create ? [createRoute(place, 'attributes', ids.create)] : []),
    place.route.get(
      place.path,
      ids.list,
      v.object({
        ...pageSchema(attributeSchema).entries,
        data: v.array(attributeSchema),
        count: v.number(),
      }),
      {
        input: { params: collectionParams(place), query: attributeListQuery },
        errors: place.tenant ? [404] : [],
        handler: async (_c, { params, query }, scope) =>
          service.listAttributes(
            catalogueOf(scope, params),
            { name: query.name, type: query.type },
            pageRequest(query, service.cursorOf('attributes'), 1),
          ),
      },
    ),
    ...(ids.update
      ? [
          place.route.put(itemPath(place), ids.update, attributeSchema, {
            input: { params: itemParams(place), body: updateAttributeBody },
            errors: [404],
            handler: async (_c, { params, body }, scope) =>
              service.updateAttribute(writableCatalogueOf(scope, params), params.id, body),
          }),
        ]
      : []),
    deleteRoute(place, 'attributes', ids.delete),
  ];
}

const itemSchemas = { groups: groupSchema, attributes: attributeSchema };
const createBodies = { groups: createGroupBody, attributes: createAttributeBody };

/** POST of a group or an attribute into one catalogue (a tenant's is created if new). */
function createRoute(place: Place, kind: CatalogueKind, operationId: string) {
  return place.route.post(place.path, operationId, itemSchemas[kind], {
    input: { params: collectionParams(place), body: createBodies[kind] },
    errors: [409],
    handler: async (_c, { params, body }, scope) =>
      service.createItem(writableCatalogueOf(scope, params), kind, withoutNulls(body)),
  });
}

/** GET of one catalogue's groups or attributes, a page at a time: the same shape in every set. */
function listRoute(place: Place, kind: CatalogueKind, operationId: string) {
  return place.route.get(place.path, operationId, pageSchema(itemSchemas[kind]), {
    input: { params: collectionParams(place), query: pageQuery },
    errors: place.tenant ? [404] : [],
    handler: async (_c, { params, query }, scope) =>
      service.listItems(catalogueOf(scope, params), kind, pageRequest(query, service.cursorOf(kind), 1)),
  });
}

/** DELETE of one group or attribute: the same shape in every set. */
function deleteRoute(place: Place, kind: CatalogueKind, operationId: string) {
  return place.route.delete(itemPath(place), operationId, deletedSchema, {
    input: { params: itemParams(place) },
    errors: [404],
    handler: async (_c, { params }, scope) =>
      service.deleteItem(writableCatalogueOf(scope, params), kind, params.id),
  });
}

const route = catalogueRoute(['Embed tenants']);

/** The account-wide group catalogue, mounted at /api/v1/groups. */
export const groupsRoutes = routes(
  ...groupRoutes(
    { path: '/', tenant: false, route: catalogueRoute(['Embed groups (account-wide)']) },
    {
      create: 'createAccountGroup',
      list: 'getAccountGroups',
      get: 'getAccountGroup',
      members: 'getAccountGroupMembers',
      update: 'updateAccountGroup',
      delete: 'deleteAccountGroup',
    },
  ),
);

/** The account-wide user-attribute catalogue, mounted at /api/v1/user-attributes. */
export const userAttributesRoutes = routes(
  ...attributeRoutes(
    { path: '/', tenant: false, route: catalogueRoute(['User attributes (account-wide)']) },
    {
      create: 'createUserAttribute',
      list: 'getUserAttributes',
      update: 'updateUserAttribute',
      delete: 'deleteUserAttribute',
    },
  ),
);

/** Embed tenants (list, delete, users, provisioning) and their catalogues, mounted at /api/v1/embed-tenants. */
export const embedTenantsRoutes = routes(
  route.get('/', 'listEmbedTenants', pageSchema(tenantSchema), {
    input: { query: tenantListQuery },
    handler: async (_c, { query }, scope) =>
      service.listTenantsMatching(scope, query.search, pageRequest(query, 'embed-tenants', 1)),
  }),
  route.delete('/:embedTenantName', 'deleteEmbedTenant', tenantDeletedSchema, {
    input: { params: tenantParams },
    handler: async (_c, { params }, scope) => service.deleteTenant(scope, params.embedTenantName),
  }),
  route.get('/:embedTenantName/users', 'listEmbedUsers', pageSchema(embedUserSchema), {
    input: { params: tenantParams, query: userListQuery },
    errors: [404],
    handler: async (_c, { params, query }, scope) =>
      service.listTenantUsers(
        scope,
        params.embedTenantName,
        query.search,
        pageRequest(query, 'embed-tenant-users', 1),
      ),
  }),
  route.post('/:embedTenantName/user', 'provisionEmbedUser', embedUserSchema, {
    input: { params: tenantParams, body: provisionUserBody },
    errors: [400, 429],
    handler: async (_c, { params, body }, scope) =>
      provision.provisionUser(scope, params.embedTenantName, body),
  }),
  route.post('/:embedTenantName/users', 'provisionEmbedUsers', provisionUsersSchema, {
    input: { params: tenantParams, body: provisionUsersBody },
    errors: [400, 429],
    handler: async (_c, { params, body }, scope) =>
      provision.provisionUsers(scope, params.embedTenantName, body.users),
  }),
  ...groupRoutes(
    { path: '/:embedTenantName/groups', tenant: true, route },
    {
      create: 'createGroup',
      list: 'getGroups',
      get: 'getGroup',
      members: 'getGroupMembers',
      update: 'updateGroup',
      delete: 'deleteGroup',
    },
  ),
  ...attributeRoutes(
    { path: '/:embedTenantName/user-attributes', tenant: true, route },
    { list: 'listEmbedUserAttributes', delete: 'deleteEmbedUserAttribute' },
  ),
);
