import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts, users } from './accounts';

export const CLOUD_PROVIDERS = ['hosted', 'aws', 'gcp'] as const;
export const CREATION_STEPS = [
  'project',
  'upload',
  'schema',
  'github',
  'ssh',
  'databases',
  'ready',
  'demo',
] as const;
export const CREATION_METHODS = ['upload', 'hosted', 'github', 'ssh'] as const;
export const DEPLOY_MODES = ['git', 'cli'] as const;

export const deployments = sqliteTable(
  'deployments',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    /** Globally unique: it is the subdomain of deploymentUrl. */
    slug: text().notNull(),
    deploymentUrl: text().notNull(),
    isManaged: integer({ mode: 'boolean' }).notNull(),
    cloudProvider: text({ enum: CLOUD_PROVIDERS }).notNull(),
    region: text().notNull(),
    targetPlatform: text().notNull(),
    creationStep: text({ enum: CREATION_STEPS }).notNull(),
    creationMethod: text({ enum: CREATION_METHODS }).notNull(),
    deployMode: text({ enum: DEPLOY_MODES }).notNull(),
    /**
     * Cube's deployment settings edgeboard stores and answers but does not act on (branch,
     * release channel, template, storage config…): a bounded JSON object, null until first set.
     */
    settings: text({ mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('deployments_slug_uq').on(t.slug),
    index('deployments_account_idx').on(t.accountId, t.id),
    // FK child column: deleting a user sets it to null without a scan.
    index('deployments_created_by_idx').on(t.createdBy),
  ],
);

/** The files of a deployment's project; creation stores the empty starter project here. */
export const projectFiles = sqliteTable(
  'project_files',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    path: text().notNull(),
    content: text().notNull(),
    createdAt: text().notNull(),
    /** When the file last changed (null: never since creation). */
    updatedAt: text(),
  },
  (t) => [uniqueIndex('project_files_path_uq').on(t.deploymentId, t.path)],
);

export const BUILD_STATUSES = ['queued', 'building', 'built', 'failed'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

export const builds = sqliteTable(
  'builds',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    status: text({ enum: BUILD_STATUSES }).notNull().default('queued'),
    errorText: text(),
    /** Bumped by each consumer claim: tells a redelivery apart from the first delivery. */
    attempts: integer().notNull().default(0),
    createdAt: text().notNull(),
    startedAt: text(),
    finishedAt: text(),
    /**
     * The compiled data model of a built build (src/semantic/model/model.types.ts CompiledModel):
     * what the data API plans queries against. Null until built, and for failed builds.
     */
    compiledModel: text({ mode: 'json' }).$type<unknown>(),
  },
  (t) => [
    index('builds_deployment_idx').on(t.deploymentId, t.id),
    // The cron sweep reads only unfinished builds: these partial indexes hold nothing else,
    // so a tick costs the number of stranded builds, not the size of the table.
    index('builds_queued_idx').on(t.createdAt).where(sql`status = 'queued'`),
    index('builds_building_idx').on(t.startedAt).where(sql`status = 'building'`),
    // The data API serves the latest good build: this index finds it without reading failed ones.
    index('builds_built_idx').on(t.deploymentId, t.id).where(sql`status = 'built'`),
  ],
);

/**
 * A deployment's environment variables (Cube's env-vars): the data source's settings among them.
 * Values of secret-named variables (PASS, SECRET, TOKEN, KEY, CREDENTIAL) are stored encrypted.
 */
export const deploymentEnvVars = sqliteTable(
  'deployment_env_vars',
  {
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    /** The value, or for a secret-named variable its AES-GCM ciphertext (base64 of iv + data). */
    value: text().notNull(),
    encrypted: integer({ mode: 'boolean' }).notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.deploymentId, t.name] })],
);

/** Cube's data-model upload transactions: files staged by `upload/file`, applied by `upload/finish`. */
export const modelUploads = sqliteTable(
  'model_uploads',
  {
    /** The transaction id callers hold (random). */
    id: text().primaryKey(),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    createdAt: text().notNull(),
    /** After this the transaction is gone: finish answers 404 and a sweep deletes it. */
    expiresAt: text().notNull(),
  },
  (t) => [
    index('model_uploads_deployment_idx').on(t.deploymentId),
    index('model_uploads_expires_idx').on(t.expiresAt),
  ],
);

export const modelUploadFiles = sqliteTable(
  'model_upload_files',
  {
    uploadId: text()
      .notNull()
      .references(() => modelUploads.id, { onDelete: 'cascade' }),
    path: text().notNull(),
    content: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.path] })],
);

/**
 * The guards a data-model write batch can trip, each a CHECK of data_model_write_guards named
 * after itself (the repository reads the name back from D1's error):
 * - `unknown_path`: a file to delete, rename or keep is not in the project;
 * - `path_taken`: a rename's new path is already a file of the project;
 * - `too_many_files`: the project (or an upload's staged files) would pass the file count limit;
 * - `project_too_large`: the project (or an upload's staged files) would pass the size limit;
 * - `upload_gone`: the upload transaction is unknown, expired or already finished.
 */
export const DATA_MODEL_GUARDS = [
  'unknown_path',
  'path_taken',
  'too_many_files',
  'project_too_large',
  'upload_gone',
] as const;
export type DataModelGuard = (typeof DATA_MODEL_GUARDS)[number];

/**
 * Never holds a row: a guard statement inserts its reason only when the write would break a rule,
 * the CHECK fails and the whole batch (one transaction) rolls back, so limits hold against
 * concurrent writers.
 */
export const dataModelWriteGuards = sqliteTable(
  'data_model_write_guards',
  { reason: text().notNull() },
  (t) => DATA_MODEL_GUARDS.map((guard) => check(guard, sql`${t.reason} <> ${sql.raw(`'${guard}'`)}`)),
);
