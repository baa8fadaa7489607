import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { StoredAppConfig } from '../src/accounts/tenant-settings.schemas';
import { accounts } from './accounts';

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * An account's settings, as Cube's Platform API names them: its tenant settings (Cube's
 * TenantSettings, one column each) and its app config (Cube's AppConfigResponse: theme,
 * embedding, time zone policy, download restriction…). No row: every setting has its default;
 * the first update creates the row.
 */
export const accountSettings = sqliteTable('account_settings', {
  accountId: integer()
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  auditLogEnabled: integer({ mode: 'boolean' }).notNull().default(false),
  /** When `auditLogEnabled` last changed value (epoch milliseconds); 0: never. */
  auditLogChangedAt: integer().notNull().default(0),
  hasSupportAccess: integer({ mode: 'boolean' }).notNull().default(false),
  maintenanceWindowEnabled: integer({ mode: 'boolean' }).notNull().default(false),
  maintenanceWindowDay: text({ enum: WEEKDAYS }).notNull().default('sunday'),
  /** `HH:MM`, 24-hour, UTC. */
  maintenanceWindowTime: text().notNull().default('00:00'),
  oidcEnabled: integer({ mode: 'boolean' }).notNull().default(false),
  useAibiUserInterface: integer({ mode: 'boolean' }).notNull().default(false),
  /**
   * The app config as JSON, without nulls (an update is a JSON merge patch of it). The embedded
   * chat's account-wide default is not here: it is `accounts.show_dashboard_chat`.
   */
  appConfig: text({ mode: 'json' }).$type<StoredAppConfig>().notNull().default({}),
  updatedAt: text().notNull(),
});

export type AccountSettingsRow = typeof accountSettings.$inferSelect;
