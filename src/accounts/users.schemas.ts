import * as v from 'valibot';
import { idNumber, obj } from '../core/validation';
import { firstName, picture } from './accounts.schemas';

/** Most users one bulk action names (Cube's bound). */
export const MAX_BULK_USERS = 100;
/** Most notification kinds a user's `notifications` lists. */
export const MAX_NOTIFICATION_KINDS = 50;

const validLocale = (s: string) => {
  try {
    return Intl.getCanonicalLocales(s).length === 1;
  } catch {
    return false;
  }
};

const validTimeZone = (s: string) => {
  // IANA names only: Intl also takes offsets such as "+02:00", which are not time zones.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(s)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: s });
    return true;
  } catch {
    return false;
  }
};

const nullable = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

const sheetsSettingsBody = obj({
  autoRunQueryOnChange: nullable(v.boolean()),
  openExplorationFromSheet: nullable(v.boolean()),
  revealSheetOnOpen: nullable(v.boolean()),
  showAppliedFilters: nullable(v.boolean()),
  suppressDuplicateValues: nullable(v.boolean()),
});

/**
 * Cube's UserSettingsInput: a partial patch merged into the user's settings. An omitted field
 * stays, `null` clears it; `sheets` merges field by field (`sheets: null` clears all of it).
 */
export const userSettingsBody = obj({
  alternatingRowColors: nullable(v.boolean()),
  defaultDeploymentId: nullable(v.pipe(idNumber, v.description('A deployment of the account.'))),
  lastSeenChangelogId: nullable(
    v.pipe(v.number(), v.integer(), v.description('Deprecated by Cube: accepted and ignored.')),
  ),
  locale: nullable(
    v.pipe(v.string(), v.maxLength(35), v.check(validLocale, 'Expected a BCP 47 language tag such as en-US')),
  ),
  sheets: nullable(sheetsSettingsBody),
  theme: nullable(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  timezone: nullable(
    v.pipe(v.string(), v.check(validTimeZone, 'Expected an IANA time zone such as Europe/Paris')),
  ),
});

const notificationKind = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(64),
  v.regex(/^[A-Za-z0-9._-]+$/, 'Letters, digits and . _ - only'),
);

/**
 * Cube's UserUpdateInput, as far as edgeboard's users go: a null field is one not sent. Cube's
 * `password`, `lastLogin`, `embedTheme`, `securityContext` and `tosAccepted` are unknown fields
 * (400): edgeboard's users sign in with access tokens and have none of these.
 */
export const updateUserBody = v.optional(
  obj({
    firstName: nullable(firstName),
    picture: nullable(picture),
    title: nullable(v.pipe(v.string(), v.trim(), v.maxLength(255))),
    isAdmin: nullable(v.boolean()),
    isDeactivated: nullable(v.boolean()),
    notifications: nullable(
      v.pipe(
        v.array(notificationKind),
        v.maxLength(MAX_NOTIFICATION_KINDS, `At most ${MAX_NOTIFICATION_KINDS} notification kinds`),
      ),
    ),
    settings: nullable(userSettingsBody),
  }),
);

/** The body of updateMySettings: Cube's UserSettingsInput, which may be left out. */
export const mySettingsBody = v.optional(userSettingsBody);

export const BULK_USER_ACTIONS = ['DEACTIVATE', 'ACTIVATE', 'DELETE'] as const;
export type BulkUserAction = (typeof BULK_USER_ACTIONS)[number];

export const bulkUserActionBody = obj({
  action: v.picklist(BULK_USER_ACTIONS),
  userIds: v.pipe(
    v.array(idNumber),
    v.minLength(1, 'Name at least one user'),
    v.maxLength(MAX_BULK_USERS, `At most ${MAX_BULK_USERS} users per call`),
  ),
});

const bulkActionError = v.object({ status: v.number(), message: v.string() });

export const bulkUserActionResultSchema = v.object({
  action: v.picklist(BULK_USER_ACTIONS),
  succeeded: v.array(v.number()),
  failed: v.array(v.object({ userId: v.number(), error: bulkActionError })),
});

export type UserSettingsInput = v.InferOutput<typeof userSettingsBody>;
export type UpdateUserInput = NonNullable<v.InferOutput<typeof updateUserBody>>;
export type BulkUserActionInput = v.InferOutput<typeof bulkUserActionBody>;
export type BulkUserActionResult = v.InferOutput<typeof bulkUserActionResultSchema>;
