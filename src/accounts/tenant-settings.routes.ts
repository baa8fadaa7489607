import { routeGroup, routes } from '../http/route';
import markdown from './tenant-settings.routes.md';
import {
  appConfigPatchBody,
  appConfigSchema,
  tenantSettingsBody,
  tenantSettingsSchema,
} from './tenant-settings.schemas';
import {
  getAppConfig,
  getTenantSettings,
  updateAppConfig,
  updateTenantSettings,
} from './tenant-settings.service';

const tags = ['Tenant settings and app config'];

/** Reading: any user of the account, or any of its API keys. */
const read = routeGroup({ auth: 'user', scope: 'account', tags, docs: markdown });

/** Changing: an admin, or an API key that is not scoped to deployments (an account-wide setting). */
const write = read.with({ auth: 'admin', accountWide: true, errors: [403] });

/** The account's tenant settings and app config (Cube's Tenant Settings and App Theme). Mounted at /api/v1. */
export const tenantSettingsRoutes = routes(
  read.get('/tenant/settings', 'getTenantSettings', tenantSettingsSchema, {
    handler: async (_c, _input, scope) => getTenantSettings(scope),
  }),
  write.put('/tenant/settings', 'updateTenantSettings', tenantSettingsSchema, {
    input: { body: tenantSettingsBody },
    handler: async (_c, { body }, scope) => updateTenantSettings(scope, body),
  }),
  read.get('/app-config', 'getAppConfig', appConfigSchema, {
    handler: async (_c, _input, scope) => getAppConfig(scope),
  }),
  write.patch('/app-config', 'updateAppConfig', appConfigSchema, {
    input: { body: appConfigPatchBody },
    handler: async (_c, { body }, scope) => updateAppConfig(scope, body),
  }),
);
