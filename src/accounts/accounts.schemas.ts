import * as v from 'valibot';
import { ACCOUNT_PLANS, USER_ROLES } from '../../schema/accounts';
import { httpUrl, idNumber, nonEmptyString, obj } from '../core/validation';
import { webhookUrlProblem } from '../core/webhook-url';

const origin = v.pipe(
  v.string(),
  v.maxLength(255),
  v.regex(/^https?:\/\/[^/\s?#]+$/i, 'Expected an origin such as https://app.example.com (no path)'),
);

const accountSettings = {
  plan: v.optional(v.picklist(ACCOUNT_PLANS)),
  useCreatorMode: v.optional(v.boolean()),
  externalUserLimit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000_000))),
  embedSessionTtlSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(86400))),
  showDashboardChat: v.optional(v.boolean()),
  allowedEmbedOrigins: v.optional(v.nullable(v.pipe(v.array(origin), v.maxLength(50)))),
  chatWebhookUrl: v.optional(
    v.nullable(
      v.pipe(
        httpUrl,
        v.rawCheck(({ dataset, addIssue }) => {
          const problem = dataset.typed ? webhookUrlProblem(dataset.value) : null;
          if (problem) addIssue({ message: problem });
        }),
        v.description(
          'An https URL of a public host (not loopback, private, link-local or a single-label name).',
        ),
      ),
    ),
  ),
  storedBytesLimit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.maxValue(8 * 1024 ** 3),
      v.description(
        'Bytes the account may store (workspace items, dashboards, snapshots). Default by plan: free 50 MiB, ' +
          'starter 250 MiB, premium 1 GiB, enterprise 4 GiB. Writes past it answer 429 QUOTA_EXCEEDED.',
      ),
    ),
  ),
  sessionRateLimit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(100_000),
      v.description(
        'Generate-session requests per API key per minute. Default by plan: free 60, starter 300, ' +
          'premium 1200, enterprise 6000. Past it: 429 RATE_LIMITED with Retry-After.',
      ),
    ),
  ),
};

const username = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1),
  v.maxLength(64),
  v.regex(/^[A-Za-z0-9._@-]+$/, 'Letters, digits and . _ @ - only'),
);
const email = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'));

export const createAccountBody = obj({
  name: nonEmptyString(255),
  ...accountSettings,
  adminEmail: v.optional(email),
  adminUsername: v.optional(username),
});

export const updateAccountBody = obj({
  name: v.optional(nonEmptyString(255)),
  ...accountSettings,
});

export const accountSchema = v.object({
  id: v.number(),
  name: v.string(),
  plan: v.picklist(ACCOUNT_PLANS),
  useCreatorMode: v.boolean(),
  externalUserLimit: v.number(),
  embedSessionTtlSeconds: v.number(),
  showDashboardChat: v.boolean(),
  allowedEmbedOrigins: v.nullable(v.array(v.string())),
  chatWebhookUrl: v.nullable(v.string()),
  storedBytesLimit: v.number(),
  sessionRateLimit: v.number(),
  /** Usage, read-only: bytes stored now (against storedBytesLimit) and external users (against externalUserLimit). */
  storedBytes: v.number(),
  externalUserCount: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

/** An account as the operator sees it: with the shard its rows live on (the directory's). */
export const operatorAccountSchema = v.object({
  ...accountSchema.entries,
  shard: v.pipe(v.number(), v.description('The shard the account lives on (GET /admin/v1/shards).')),
});

/** A user's settings as answered: the fields set, and `sheets` when any of its fields is. */
export const userSettingsSchema = v.object({
  alternatingRowColors: v.optional(v.boolean()),
  defaultDeploymentId: v.optional(v.number()),
  locale: v.optional(v.string()),
  theme: v.optional(v.string()),
  timezone: v.optional(v.string()),
  sheets: v.optional(
    v.object({
      autoRunQueryOnChange: v.optional(v.boolean()),
      openExplorationFromSheet: v.optional(v.boolean()),
      revealSheetOnOpen: v.optional(v.boolean()),
      showAppliedFilters: v.optional(v.boolean()),
      suppressDuplicateValues: v.optional(v.boolean()),
    }),
  ),
});

export const userSchema = v.object({
  id: v.number(),
  email: v.string(),
  username: v.string(),
  firstName: v.string(),
  picture: v.string(),
  role: v.picklist(USER_ROLES),
  createdAt: v.string(),
  /** Cube's: the built-in admin role (`role` says the same). */
  isAdmin: v.boolean(),
  /** Cube's: a deactivated user's access tokens answer 401 until they are reactivated. */
  isDeactivated: v.boolean(),
  /** Cube's: each notification kind the user receives, mapped to true. */
  notifications: v.record(v.string(), v.literal(true)),
  title: v.nullable(v.string()),
  settings: userSettingsSchema,
  updatedAt: v.nullable(v.string()),
  /** The ids of the custom roles the user holds (assigned with PUT /api/v1/roles/{roleId}/users/{userId}). */
  roleIds: v.array(v.number()),
});

export const provisionedAccountSchema = v.object({
  account: accountSchema,
  user: userSchema,
  accessToken: v.string(),
  apiKey: v.string(),
});

export const firstName = v.pipe(v.string(), v.trim(), v.maxLength(255));
export const picture = v.union([httpUrl, v.literal('')]);

export const createUserBody = obj({
  email,
  username,
  firstName: v.optional(firstName),
  picture: v.optional(picture),
  role: v.optional(v.picklist(USER_ROLES)),
  /** Cube's way to say `role`: true for `admin`, false for `member`; null is not sent. */
  isAdmin: v.optional(v.nullable(v.boolean())),
});

export const accessTokenCreatedSchema = v.object({
  id: v.number(),
  token: v.string(),
  createdAt: v.string(),
});
export const accessTokenSchema = v.object({
  id: v.number(),
  userId: v.number(),
  prefix: v.string(),
  createdAt: v.string(),
});

export const createApiKeyBody = obj({
  name: nonEmptyString(255),
  deploymentIds: v.optional(v.nullable(v.pipe(v.array(idNumber), v.minLength(1), v.maxLength(1000)))),
});

export const apiKeySchema = v.object({
  id: v.number(),
  name: v.string(),
  prefix: v.string(),
  deploymentIds: v.nullable(v.array(v.number())),
  createdAt: v.string(),
});

export const apiKeyCreatedSchema = v.object({
  id: v.number(),
  name: v.string(),
  deploymentIds: v.nullable(v.array(v.number())),
  key: v.string(),
  createdAt: v.string(),
});

export type CreateAccountInput = v.InferOutput<typeof createAccountBody>;
export type UpdateAccountInput = v.InferOutput<typeof updateAccountBody>;
export type CreateUserInput = v.InferOutput<typeof createUserBody>;
export type Account = v.InferOutput<typeof accountSchema>;
export type User = v.InferOutput<typeof userSchema>;
