import { eq, sql } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import { type AccountSettingsRow, accountSettings } from '../../schema/settings';
import { mapRow, runBatch } from '../core/db';
import type { AccountScope, RequestScope } from '../core/scope';
import type { TenantSettingsInput } from './tenant-settings.schemas';

/** Whose settings: a request's account scope, or any scope given the account (a delivery's run). */
export type SettingsScope = RequestScope & Pick<AccountScope, 'accountId'>;

/** The account's settings row; undefined when nothing was ever set (every setting its default). */
export async function findAccountSettings(scope: SettingsScope): Promise<AccountSettingsRow | undefined> {
  const [row] = await scope.db
    .select()
    .from(accountSettings)
    .where(eq(accountSettings.accountId, scope.accountId));
  return row;
}

/** The given tenant settings, creating the row on the first write: ONE statement. */
export async function upsertTenantSettings(
  scope: AccountScope,
  input: TenantSettingsInput,
): Promise<AccountSettingsRow> {
  const given = {
    auditLogEnabled: input.auditLogEnabled ?? undefined,
    hasSupportAccess: input.hasSupportAccess ?? undefined,
    maintenanceWindowDay: input.maintenanceWindowDay ?? undefined,
    maintenanceWindowEnabled: input.maintenanceWindowEnabled ?? undefined,
    maintenanceWindowTime: input.maintenanceWindowTime ?? undefined,
    oidcEnabled: input.oidcEnabled ?? undefined,
    useAibiUserInterface: input.useAIBIUserInterface ?? undefined,
  };
  const nowMs = scope.now.getTime();
  const updatedAt = scope.now.toISOString();
  const [row] = await scope.db
    .insert(accountSettings)
    .values({
      accountId: scope.accountId,
      ...given,
      // The default is off: turning it on is a change.
      auditLogChangedAt: given.auditLogEnabled ? nowMs : 0,
      updatedAt,
    })
    .onConflictDoUpdate({
      target: accountSettings.accountId,
      set: {
        ...given,
        // Written SQL: the stamp moves only when the value changes, judged against the stored row
        // in the same statement (SET reads the row as it was before the update).
        ...(given.auditLogEnabled === undefined
          ? {}
          : {
              auditLogChangedAt: sql`CASE WHEN ${accountSettings.auditLogEnabled} = ${given.auditLogEnabled ? 1 : 0}
                THEN ${accountSettings.auditLogChangedAt} ELSE ${nowMs} END`,
            }),
        updatedAt,
      },
    })
    .returning();
  if (!row) throw new Error('the settings upsert returned no row');
  return row;
}

/**
 * Applies a JSON merge patch to the stored app config and, when given, the embedded chat's
 * account-wide default (a column of the account), as ONE batch.
 */
export async function patchAppConfig(
  scope: AccountScope,
  patch: Record<string, unknown>,
  showDashboardChat: boolean | undefined,
): Promise<AccountSettingsRow> {
  const json = JSON.stringify(patch);
  const updatedAt = scope.now.toISOString();
  const upsert = scope.db
    .insert(accountSettings)
    .values({
      accountId: scope.accountId,
      // Written SQL (json_patch, SQLite's RFC 7396): the merge happens in the statement, so two
      // concurrent patches of different fields both land. A first patch applies to {}.
      appConfig: sql`json_patch('{}', ${json})`,
      updatedAt,
    })
    .onConflictDoUpdate({
      target: accountSettings.accountId,
      set: { appConfig: sql`json_patch(${accountSettings.appConfig}, ${json})`, updatedAt },
    })
    .returning();
  const chat =
    showDashboardChat === undefined
      ? []
      : [
          scope.db
            .update(accounts)
            .set({ showDashboardChat, updatedAt })
            .where(eq(accounts.id, scope.accountId)),
        ];
  const [settings] = await runBatch(scope.db, [upsert, ...chat]);
  const raw = settings?.results[0];
  if (!raw) throw new Error('the app config upsert returned no row');
  return mapRow(accountSettings, raw);
}
