import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts, users } from './accounts';

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
    cloudProvider: text().notNull(),
    region: text().notNull(),
    targetPlatform: text().notNull(),
    creationStep: text().notNull(),
    creationMethod: text().notNull(),
    deployMode: text().notNull(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('deployments_slug_uq').on(t.slug),
    index('deployments_account_idx').on(t.accountId, t.id),
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
  },
  (t) => [index('builds_deployment_idx').on(t.deploymentId, t.id)],
);
