import type { Context } from 'hono';
import { accountPrincipal, authenticate } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { doc } from '../core/openapi';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { createRouter } from '../core/router';
import { deletedSchema, idParams, validate } from '../core/validation';
import type { AppEnv } from '../env';
import type { Catalogue } from './catalogues.repository';
import * as service from './catalogues.service';
import {
  attributeSchema,
  createAttributeBody,
  createGroupBody,
  groupSchema,
  tenantItemParams,
  tenantParams,
  tenantSchema,
  updateGroupBody,
} from './embedding.schemas';

/** Admin users (Bearer) and API keys of the account (which act as its admin) manage catalogues. */
const admin = authenticate(['Bearer', 'Api-Key'], { role: 'admin' });
const auth = 'bearerOrApiKey' as const;

const accountWide = (c: Context<AppEnv>): Catalogue => ({
  accountId: accountPrincipal(c).account.id,
  tenant: null,
});
const ofTenant = (c: Context<AppEnv>, tenant: string): Catalogue => ({
  accountId: accountPrincipal(c).account.id,
  tenant,
});

const groupTags = ['Embed groups (account-wide)'];

/** The account-wide group catalogue (contract §6), mounted at /api/v1/groups. */
export const groupsRoutes = createRouter()
  .use('*', admin)
  .post(
    '/',
    doc({
      summary: 'Create an account-wide group',
      tags: groupTags,
      auth,
      responses: { 201: groupSchema },
      errors: [403, 409],
    }),
    validate('json', createGroupBody),
    async (c) => {
      const group = await service.createGroup(
        c.get('db'),
        accountWide(c),
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(group, 201);
    },
  )
  .get(
    '/',
    doc({
      summary: 'List account-wide groups',
      tags: groupTags,
      auth,
      responses: { 200: pageSchema(groupSchema) },
      errors: [403],
    }),
    validate('query', pageQuery),
    async (c) => {
      const request = pageRequest(c.req.valid('query'), 'embed-groups', 1);
      return c.json(await service.listGroups(c.get('db'), accountWide(c), request));
    },
  )
  .patch(
    '/:id',
    doc({
      summary: 'Rename or describe an account-wide group',
      tags: groupTags,
      auth,
      responses: { 200: groupSchema },
      errors: [403, 404, 409],
    }),
    validate('param', idParams),
    validate('json', updateGroupBody),
    async (c) => {
      const group = await service.updateGroup(
        c.get('db'),
        accountWide(c),
        c.req.valid('param').id,
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(group);
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete an account-wide group and its memberships',
      tags: groupTags,
      auth,
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', idParams),
    async (c) => c.json(await service.deleteGroup(c.get('db'), accountWide(c), c.req.valid('param').id)),
  );

const attributeTags = ['User attributes (account-wide)'];

/** The account-wide user-attribute catalogue (contract §6), mounted at /api/v1/user-attributes. */
export const userAttributesRoutes = createRouter()
  .use('*', admin)
  .post(
    '/',
    doc({
      summary: 'Define an account-wide user attribute',
      tags: attributeTags,
      auth,
      responses: { 201: attributeSchema },
      errors: [403, 409],
    }),
    validate('json', createAttributeBody),
    async (c) => {
      const attribute = await service.createAttribute(
        c.get('db'),
        accountWide(c),
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(attribute, 201);
    },
  )
  .get(
    '/',
    doc({
      summary: 'List account-wide user attributes',
      tags: attributeTags,
      auth,
      responses: { 200: pageSchema(attributeSchema) },
      errors: [403],
    }),
    validate('query', pageQuery),
    async (c) => {
      const request = pageRequest(c.req.valid('query'), 'embed-attributes', 1);
      return c.json(await service.listAttributes(c.get('db'), accountWide(c), request));
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete an account-wide user attribute and every stored value of it',
      tags: attributeTags,
      auth,
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', idParams),
    async (c) => c.json(await service.deleteAttribute(c.get('db'), accountWide(c), c.req.valid('param').id)),
  );

const tenantTags = ['Embed tenants (E10–E14)'];

/** Embed-tenant admin (E10–E14) and the tenant list, mounted at /api/v1/embed-tenants. */
export const embedTenantsRoutes = createRouter()
  .use('*', admin)
  .get(
    '/',
    doc({
      summary: 'List embed tenants',
      tags: tenantTags,
      auth,
      responses: { 200: pageSchema(tenantSchema) },
      errors: [403],
    }),
    validate('query', pageQuery),
    async (c) => {
      const request = pageRequest(c.req.valid('query'), 'embed-tenants', 1);
      return c.json(await service.listTenants(c.get('db'), accountPrincipal(c).account.id, request));
    },
  )
  .post(
    '/:embedTenantName/groups',
    doc({
      summary: 'E10 Create an embed group in a tenant (the tenant is created if new)',
      tags: tenantTags,
      auth,
      operationId: 'createEmbedGroup',
      responses: { 201: groupSchema },
      errors: [403, 409],
    }),
    validate('param', tenantParams),
    validate('json', createGroupBody),
    async (c) => {
      const group = await service.createGroup(
        c.get('db'),
        ofTenant(c, c.req.valid('param').embedTenantName),
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(group, 201);
    },
  )
  .get(
    '/:embedTenantName/groups',
    doc({
      summary: 'E11 List the embed groups of a tenant',
      tags: tenantTags,
      auth,
      operationId: 'listEmbedGroups',
      responses: { 200: pageSchema(groupSchema) },
      errors: [403, 404],
    }),
    validate('param', tenantParams),
    validate('query', pageQuery),
    async (c) => {
      const request = pageRequest(c.req.valid('query'), 'embed-groups', 1);
      const catalogue = ofTenant(c, c.req.valid('param').embedTenantName);
      return c.json(await service.listGroups(c.get('db'), catalogue, request));
    },
  )
  .patch(
    '/:embedTenantName/groups/:id',
    doc({
      summary: 'E12 Update an embed group (an empty description clears it; omitted keeps it)',
      tags: tenantTags,
      auth,
      operationId: 'updateEmbedGroup',
      responses: { 200: groupSchema },
      errors: [403, 404, 409],
    }),
    validate('param', tenantItemParams),
    validate('json', updateGroupBody),
    async (c) => {
      const { embedTenantName, id } = c.req.valid('param');
      const group = await service.updateGroup(
        c.get('db'),
        ofTenant(c, embedTenantName),
        id,
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(group);
    },
  )
  .delete(
    '/:embedTenantName/groups/:id',
    doc({
      summary: 'E13 Delete an embed group and its memberships',
      tags: tenantTags,
      auth,
      operationId: 'deleteEmbedGroup',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', tenantItemParams),
    async (c) => {
      const { embedTenantName, id } = c.req.valid('param');
      return c.json(await service.deleteGroup(c.get('db'), ofTenant(c, embedTenantName), id));
    },
  )
  .get(
    '/:embedTenantName/user-attributes',
    doc({
      summary: 'E14 List the user attributes of a tenant',
      tags: tenantTags,
      auth,
      operationId: 'listEmbedUserAttributes',
      responses: { 200: pageSchema(attributeSchema) },
      errors: [403, 404],
    }),
    validate('param', tenantParams),
    validate('query', pageQuery),
    async (c) => {
      const request = pageRequest(c.req.valid('query'), 'embed-attributes', 1);
      const catalogue = ofTenant(c, c.req.valid('param').embedTenantName);
      return c.json(await service.listAttributes(c.get('db'), catalogue, request));
    },
  )
  .delete(
    '/:embedTenantName/user-attributes/:id',
    doc({
      summary: 'E14 Delete a user attribute of a tenant and every stored value of it',
      tags: tenantTags,
      auth,
      operationId: 'deleteEmbedUserAttribute',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', tenantItemParams),
    async (c) => {
      const { embedTenantName, id } = c.req.valid('param');
      return c.json(await service.deleteAttribute(c.get('db'), ofTenant(c, embedTenantName), id));
    },
  );
