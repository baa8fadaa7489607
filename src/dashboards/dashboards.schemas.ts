import * as v from 'valibot';
import { boundedObject, idNumber, idString, obj } from '../core/validation';
import { dashboardConfigInput, dashboardConfigSchema, int } from './dashboard-config.schemas';
import { COLUMN_FORMATS_LIMITS, MAX_PERIOD_COMPARISONS, REPORT_META_LIMITS } from './dashboards.limits';

// ---- Reports: the fields a ReportSnapshot freezes ----

export const TIME_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

const memberName = v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(255));

export const fillMissingRowsSchema = obj({
  member: memberName,
  excludedDimensions: v.pipe(v.array(memberName), v.maxLength(100)),
});

export const periodComparisonSchema = obj({
  measure: memberName,
  timeDimension: memberName,
  offset: obj({ amount: int(-100_000, 100_000), unit: v.picklist(TIME_UNITS) }),
  outputs: v.pipe(v.array(memberName), v.maxLength(20)),
});

export const preferencesSchema = obj({ columnFormats: boundedObject(COLUMN_FORMATS_LIMITS) });

export type FillMissingRows = v.InferOutput<typeof fillMissingRowsSchema>;
export type PeriodComparison = v.InferOutput<typeof periodComparisonSchema>;
export type ReportPreferences = v.InferOutput<typeof preferencesSchema>;

/** What a report holds, in a report and in its snapshot frozen at publish time. */
export const reportContentEntries = {
  versionNumber: v.number(),
  title: v.string(),
  description: v.string(),
  spec: v.string(),
  sqlQuery: v.string(),
  meta: boundedObject(REPORT_META_LIMITS),
  fillMissingRows: v.nullable(fillMissingRowsSchema),
  periodComparisons: v.pipe(v.array(periodComparisonSchema), v.maxLength(MAX_PERIOD_COMPARISONS)),
  preferences: preferencesSchema,
};

export const reportSnapshotSchema = v.object({
  id: v.number(),
  reportId: v.number(),
  name: v.string(),
  ...reportContentEntries,
  /** The report's Cube query as JSON text, frozen at publish; null for a report of static rows. */
  jsonQuery: v.optional(v.nullable(v.string())),
  /** Why this load has no rows for the report (its query failed); absent when it has them. */
  error: v.optional(v.nullable(v.string())),
});

export type ReportSnapshot = v.InferOutput<typeof reportSnapshotSchema>;

// ---- The draft and publishing ----

/** A workbook of a deployment, in the path. */
export const workbookParams = v.object({ deploymentId: idString, id: idString });

export const dashboardBody = v.optional(
  obj({ dashboardDraft: v.optional(v.nullable(dashboardConfigInput)) }),
);

export const dashboardStateSchema = v.object({
  dashboardDraft: v.nullable(dashboardConfigSchema),
  dashboardPublished: v.nullable(dashboardConfigSchema),
});

/**
 * Cube's PublishDashboardInput. `workbookId` is required by Cube; edgeboard also takes a publish
 * without it (the path names the workbook) but refuses one naming another workbook.
 */
export const publishBody = v.optional(
  obj({
    workbookId: v.optional(idNumber),
    dashboardId: v.nullish(idNumber),
    allowEmbed: v.nullish(v.boolean()),
    config: v.nullish(dashboardConfigInput),
    title: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
    description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(10_000)))),
    restrictDataDownload: v.nullish(v.boolean()),
  }),
);

export type PublishInput = NonNullable<v.InferOutput<typeof publishBody>>;

/** Cube's DashboardDtoStatus: the current version is `published`, earlier ones `archived`. */
export const DASHBOARD_STATUSES = ['draft', 'published', 'archived'] as const;

export const publishedDashboardSchema = v.object({
  id: v.number(),
  status: v.picklist(DASHBOARD_STATUSES),
  deploymentId: v.number(),
  workbookId: v.number(),
  versionId: v.number(),
  versionNumber: v.number(),
  publicId: v.string(),
  allowEmbed: v.boolean(),
  allEmbedUsers: v.boolean(),
  config: dashboardConfigSchema,
  reportSnapshots: v.array(reportSnapshotSchema),
  title: v.nullable(v.string()),
  description: v.nullable(v.string()),
  restrictDataDownload: v.boolean(),
  fromSharedWorkspace: v.boolean(),
  useBoardDashboards: v.boolean(),
  createdBy: v.nullable(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export type PublishedDashboard = v.InferOutput<typeof publishedDashboardSchema>;

const versionSummaryEntries = {
  id: v.number(),
  publishedDashboardId: v.number(),
  publicId: v.string(),
  versionNumber: v.number(),
  isCurrent: v.boolean(),
  /** `published` for the current version, `archived` for earlier ones. */
  status: v.picklist(DASHBOARD_STATUSES),
  publishedAt: v.string(),
  publishedBy: v.nullable(v.number()),
  createdBy: v.nullable(v.number()),
  createdAt: v.string(),
};

/** A version in the versions list: no config, no snapshots (read one version for those). */
export const dashboardVersionSummarySchema = v.object(versionSummaryEntries);

/** One version with its body. */
export const dashboardVersionSchema = v.object({
  ...versionSummaryEntries,
  config: dashboardConfigSchema,
  reportSnapshots: v.array(reportSnapshotSchema),
});

/** A version of a workbook's dashboard, in the path. */
export const versionParams = v.object({
  deploymentId: idString,
  id: idString,
  versionNumber: idString,
});
