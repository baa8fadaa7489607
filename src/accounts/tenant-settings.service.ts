import type { AccountSettingsRow } from '../../schema/settings';
import type { AccountScope } from '../core/scope';
import { appConfigOf, type StoredConfig } from './app-config.policy';
import * as repo from './tenant-settings.repository';
import type {
  AppConfig,
  AppConfigPatch,
  TenantSettings,
  TenantSettingsInput,
} from './tenant-settings.schemas';

/** Cube's TenantSettings of a row (no row: the defaults). */
function toTenantSettings(row: AccountSettingsRow | undefined): TenantSettings {
  const auditLogEnabled = row?.auditLogEnabled ?? false;
  return {
    auditLogEnabled,
    // A change applies at once: what is asked for is what is in force.
    auditLogEnabledCurrent: auditLogEnabled,
    auditLogEnabledTimestamp: row?.auditLogChangedAt ?? 0,
    hasSupportAccess: row?.hasSupportAccess ?? false,
    maintenanceWindowDay: row?.maintenanceWindowDay ?? 'sunday',
    maintenanceWindowEnabled: row?.maintenanceWindowEnabled ?? false,
    maintenanceWindowTime: row?.maintenanceWindowTime ?? '00:00',
    oidcEnabled: row?.oidcEnabled ?? false,
    useAIBIUserInterface: row?.useAibiUserInterface ?? false,
  };
}

export async function getTenantSettings(scope: AccountScope): Promise<TenantSettings> {
  return toTenantSettings(await repo.findAccountSettings(scope));
}

/** Sets the fields given (omitted or null: kept) and answers every setting. */
export async function updateTenantSettings(
  scope: AccountScope,
  input: TenantSettingsInput | undefined,
): Promise<TenantSettings> {
  return toTenantSettings(await repo.upsertTenantSettings(scope, input ?? {}));
}

/**
 * The account's stored app config, for a caller whose own read does not join it (one query).
 * Feed it to the functions of `app-config.policy.ts`.
 */
export async function readAppConfig(scope: repo.SettingsScope): Promise<StoredConfig> {
  return (await repo.findAccountSettings(scope))?.appConfig ?? null;
}

export async function getAppConfig(scope: AccountScope): Promise<AppConfig> {
  // The embedded chat's default was read with the credential, in the same request.
  return appConfigOf(await readAppConfig(scope), scope.account.showDashboardChat);
}

/**
 * Applies `patch` (a JSON merge patch of the app config) and answers the whole config. The
 * embedded chat's account-wide default is the account's own column: it is written there
 * (`embedding: null` or `embedding.showDashboardChat: null` reset it to off, provisioning's
 * default), never into the stored JSON.
 */
export async function updateAppConfig(
  scope: AccountScope,
  patch: AppConfigPatch | undefined,
): Promise<AppConfig> {
  const { embedding, ...rest } = patch ?? {};
  let showDashboardChat: boolean | undefined;
  let stored: Record<string, unknown> = rest;
  if (embedding === null) {
    showDashboardChat = false;
    stored = { ...rest, embedding: null };
  } else if (embedding !== undefined) {
    const { showDashboardChat: chat, ...others } = embedding;
    if (chat !== undefined) showDashboardChat = chat ?? false;
    stored = { ...rest, embedding: others };
  }
  const row = await repo.patchAppConfig(scope, stored, showDashboardChat);
  return appConfigOf(row.appConfig, showDashboardChat ?? scope.account.showDashboardChat);
}
