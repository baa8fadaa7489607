import type { Context } from 'hono';
import * as v from 'valibot';
import { accountPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import type { AppEnv } from '../core/env';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { deletedSchema, idParams } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import type { Catalogue, CatalogueKind } from './catalogues.repository';
import * as service from './catalogues.service';
import {
  ATTRIBUTES_PER_CATALOGUE,
  attributeListQuery,
  attributeSchema,
  createAttributeBody,
  createGroupBody,
  embedUserSchema,
  groupMembersBody,
  groupSchema,
  MEMBERS_PER_REQUEST,
  MINT_LIMITS,
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
  withoutNulls,
} from './embedding.schemas';
import * as provision from './provision.service';

/**
 * Admin users (Bearer) and API keys of the account (which act as its admin) manage catalogues.
 * One factory serves the four catalogue route sets: groups and user attributes, account-wide
 * (/api/v1/groups, /api/v1/user-attributes) and per embed tenant (/api/v1/embed-tenants/{name}/…).
 */
const auth = 'admin' as const;

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
function groupRoutes(
  place: Place,
  docs: Record<'create' | 'list' | 'get' | 'members' | 'update' | 'delete', OperationDoc>,
) {
  const itemParams = place.tenant ? tenantItemParams : idParams;
  return [
    createRoute(place, 'groups', docs.create),
    listRoute(place, 'groups', docs.list),
    defineRoute({
      method: 'get',
      ...head(place, docs.get, itemPath(place)),
      params: itemParams,
      responses: { 200: groupSchema },
      errors: [403, 404],
      handler: async (c, { params }) => service.getGroup(c.get('db'), catalogueOf(c, params), params.id),
    }),
    defineRoute({
      method: 'get',
      ...head(place, docs.members, `${itemPath(place)}/users`),
      params: itemParams,
      query: pageQuery,
      responses: { 200: pageSchema(embedUserSchema) },
      errors: [403, 404],
      handler: async (c, { params, query }) =>
        service.listGroupMembers(
          c.get('db'),
          catalogueOf(c, params),
          params.id,
          pageRequest(query, 'embed-group-members', 1),
        ),
    }),
    ...(place.tenant ? memberRoutes(place) : []),
    defineRoute({
      method: 'patch',
      ...head(place, docs.update, itemPath(place)),
      params: itemParams,
      body: updateGroupBody,
      responses: { 200: groupSchema },
      errors: [403, 404, 409],
      handler: async (c, { params, body }) =>
        service.updateGroup(
          c.get('db'),
          writableCatalogueOf(c, params),
          params.id,
          withoutNulls(body),
          now(c),
        ),
    }),
    deleteRoute(place, 'groups', docs.delete),
  ];
}

/** Cube's addGroupMembers and removeGroupMembers (tenant groups only: members are the tenant's users). */
function memberRoutes(place: Place) {
  const path = `${itemPath(place)}/users`;
  const refs = (members: { embedUserId?: number | null; externalId?: string | null }[]) =>
    members.map((m) => withoutNulls(m));
  return [
    defineRoute({
      method: 'post',
      ...head(
        place,
        {
          summary: 'Add members to an embed group',
          description:
            `1–${MEMBERS_PER_REQUEST} members, each by exactly one of embedUserId or externalId (trimmed, lowercased). ` +
            'Adds, never replaces; idempotent. Unknown users are a 404 naming them (Cube provisions an unknown ' +
            'externalId; in edgeboard generate-session does).',
          operationId: 'addGroupMembers',
        },
        path,
      ),
      params: tenantItemParams,
      body: groupMembersBody,
      responses: { 200: membersAddedSchema },
      errors: [403, 404],
      handler: async (c, { params, body }) => {
        const answer = await service.changeGroupMembers(
          c.get('db'),
          catalogueOf(c, params),
          params.id,
          refs(body.members),
          'add',
        );
        return answer as v.InferOutput<typeof membersAddedSchema>;
      },
    }),
    defineRoute({
      method: 'delete',
      ...head(
        place,
        {
          summary: 'Remove members from an embed group',
          description:
            'Removing a non-member is a no-op; answers how many memberships were removed (Cube `{}`).',
          operationId: 'removeGroupMembers',
        },
        path,
      ),
      params: tenantItemParams,
      body: groupMembersBody,
      responses: { 200: membersRemovedSchema },
      errors: [403, 404],
      handler: async (c, { params, body }) => {
        const answer = await service.changeGroupMembers(
          c.get('db'),
          catalogueOf(c, params),
          params.id,
          refs(body.members),
          'remove',
        );
        return answer as v.InferOutput<typeof membersRemovedSchema>;
      },
    }),
  ];
}

/** The user attributes of one catalogue: list and delete, plus create where the spec has it. */
function attributeRoutes(
  place: Place,
  docs: { create?: OperationDoc; update?: OperationDoc; list: OperationDoc; delete: OperationDoc },
) {
  return [
    ...(docs.create ? [createRoute(place, 'attributes', docs.create)] : []),
    defineRoute({
      method: 'get',
      ...head(place, docs.list),
      params: place.tenant ? tenantParams : noParams,
      query: attributeListQuery,
      responses: {
        200: v.object({
          ...pageSchema(attributeSchema).entries,
          data: v.array(attributeSchema),
          count: v.number(),
        }),
      },
      errors: place.tenant ? [403, 404] : [403],
      handler: async (c, { params, query }) =>
        service.listAttributes(
          c.get('db'),
          catalogueOf(c, params),
          { name: query.name, type: query.type },
          pageRequest(query, service.cursorOf('attributes'), 1),
        ),
    }),
    ...(docs.update
      ? [
          defineRoute({
            method: 'put',
            ...head(place, docs.update, itemPath(place)),
            params: place.tenant ? tenantItemParams : idParams,
            body: updateAttributeBody,
            responses: { 200: attributeSchema },
            errors: [403, 404],
            handler: async (c, { params, body }) =>
              service.updateAttribute(c.get('db'), writableCatalogueOf(c, params), params.id, body, now(c)),
          }),
        ]
      : []),
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
      service.createItem(c.get('db'), kind, writableCatalogueOf(c, params), withoutNulls(body), now(c)),
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
    get: { summary: 'Get an account-wide group with its member count' },
    members: { summary: 'List the members of an account-wide group (newest user first)' },
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
    list: {
      summary: 'List account-wide user attributes',
      description:
        "Cube's filters: `name` (a case-insensitive substring of the name) and `type`. The answer carries " +
        "Cube's legacy `data` (the same items) and `count` (all matches, ignoring pagination).",
      operationId: 'getUserAttributes',
    },
    update: {
      summary: 'Update an account-wide user attribute (displayName, defaultValue, description)',
      description: 'Name and type never change. Omitted keeps a field; null clears it.',
      operationId: 'updateUserAttribute',
    },
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
    description:
      '`search`: a case-insensitive substring of the name. `userCount` counts the stored external users ' +
      '(ephemeral ones are never stored). `displayName` is always null (edgeboard stores no tenant profile).',
    tags: tenantTags,
    operationId: 'listEmbedTenants',
    query: tenantListQuery,
    responses: { 200: pageSchema(tenantSchema) },
    errors: [403],
    handler: async (c, { query }) =>
      service.listTenantsMatching(
        c.get('db'),
        accountPrincipal(c).account.id,
        query.search,
        pageRequest(query, 'embed-tenants', 1),
      ),
  }),
  defineRoute({
    method: 'delete',
    path: '/:embedTenantName',
    auth,
    summary: 'Delete an embed tenant with its users, groups, memberships, attributes and values',
    description:
      'Every live session of the tenant is revoked in the same batch (loads and token exchanges answer 401 ' +
      'SESSION_REVOKED). Idempotent as in Cube: an unknown tenant answers `deleted: false`. The name must be ' +
      'canonical (lowercase).',
    tags: tenantTags,
    operationId: 'deleteEmbedTenant',
    params: tenantParams,
    responses: { 200: tenantDeletedSchema },
    errors: [403],
    handler: async (c, { params }) =>
      service.deleteTenant(c.get('db'), accountPrincipal(c).account.id, params.embedTenantName, now(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/:embedTenantName/users',
    auth,
    summary: "List a tenant's external users",
    description:
      '`search`: a substring of the externalId or (case-insensitive) of the email. Ordered by id (Cube: by ' +
      "email). Bounded by the tenant's users, which externalUserLimit caps.",
    tags: tenantTags,
    operationId: 'listEmbedUsers',
    params: tenantParams,
    query: userListQuery,
    responses: { 200: pageSchema(embedUserSchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      service.listTenantUsers(
        c.get('db'),
        accountPrincipal(c).account.id,
        params.embedTenantName,
        query.search,
        pageRequest(query, 'embed-tenant-users', 1),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/:embedTenantName/user',
    auth,
    summary: 'Create or update an external user of a tenant (the tenant is created if new)',
    description:
      'Idempotent: the same writes generate-session makes for the user (email, profile, memberships), with ' +
      'no session. `externalId` must already be trimmed and lowercase (400 otherwise; Cube normalizes it), ' +
      'the one generate-session finds. `email` is lowercased; omitted or null keeps the stored one (a new ' +
      "user's is null; Cube invents a placeholder). `groups` (account-wide catalogue) and `tenantGroups` " +
      "(the tenant's) replace that catalogue's memberships; `[]` clears, omitted or null keeps; an unknown " +
      'name is a 400. `userProfile` leaves: omitted keeps, null clears. A new user past externalUserLimit ' +
      'is a 429 QUOTA_EXCEEDED with Retry-After. User attributes and the security context are set by ' +
      'generate-session (Cube does not take them here).',
    tags: tenantTags,
    operationId: 'provisionEmbedUser',
    params: tenantParams,
    body: provisionUserBody,
    responses: { 200: embedUserSchema },
    errors: [400, 403, 429],
    handler: async (c, { params, body }) =>
      provision.provisionUser(
        c.get('db'),
        accountPrincipal(c).account.id,
        params.embedTenantName,
        body,
        now(c),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/:embedTenantName/users',
    auth,
    summary: 'Create or update up to 100 external users of a tenant, each as provisionEmbedUser',
    description:
      `1–${USERS_PER_PROVISION} users, judged in order and written in ONE D1 batch (one read before it). ` +
      'Partial success as in Cube: an entry naming an unknown group fails with status 400, a new user past ' +
      'externalUserLimit with 429; the others succeed. A repeated externalId is applied in order (the last ' +
      'entry wins; each succeeded entry shows the final row). An entry that fails validation (e.g. an ' +
      'externalId that is not lowercase) refuses the whole call with 400. Should a concurrent writer take ' +
      'the last places between the read and the write, the call re-plans once, then answers 429.',
    tags: tenantTags,
    operationId: 'provisionEmbedUsers',
    params: tenantParams,
    body: provisionUsersBody,
    responses: { 200: provisionUsersSchema },
    errors: [400, 403, 429],
    handler: async (c, { params, body }) =>
      provision.provisionUsers(
        c.get('db'),
        accountPrincipal(c).account.id,
        params.embedTenantName,
        body.users,
        now(c),
      ),
  }),
  ...groupRoutes(
    { path: '/:embedTenantName/groups', tenant: true, tags: tenantTags },
    {
      create: {
        summary: 'E10 Create an embed group in a tenant (the tenant is created if new)',
        operationId: 'createGroup',
      },
      list: { summary: 'E11 List the embed groups of a tenant', operationId: 'getGroups' },
      get: { summary: 'Get an embed group of a tenant with its member count', operationId: 'getGroup' },
      members: {
        summary: 'List the members of an embed group (newest user first)',
        operationId: 'getGroupMembers',
      },
      update: {
        summary: 'E12 Update an embed group (an empty description clears it; omitted keeps it)',
        operationId: 'updateGroup',
      },
      delete: { summary: 'E13 Delete an embed group and its memberships', operationId: 'deleteGroup' },
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
