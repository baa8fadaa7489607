import * as v from 'valibot';
import { jsonBounds, jsonBoundsDoc } from '../core/json';
import { boundedObject, idNumber, idString, obj, objectOf } from '../core/validation';
import {
  COLUMN_FORMATS_LIMITS,
  DASHBOARD_CONFIG_LIMITS,
  MAX_APP_FILES,
  MAX_PERIOD_COMPARISONS,
  MAX_WIDGETS,
  REPORT_META_LIMITS,
  SETTINGS_LIMITS,
  WIDGET_CONFIG_LIMITS,
  WIDGET_STYLE_LIMITS,
} from './dashboards.limits';
import {
  cssBorderStyle,
  cssColor,
  cssFontFamily,
  cssFontSize,
  cssFontWeight,
  cssLengths,
  cssThemeId,
} from './theme-grammar';

export { MAX_WIDGETS };

export const DASHBOARD_KINDS = ['CLASSIC', 'APP'] as const;
/** Cube's widget types, plus `TABS_CONTAINER` (edgeboard's, kept for stored dashboards). */
export const WIDGET_TYPES = [
  'CHART',
  'TEXT',
  'FILTER',
  'AI',
  'TABS_CONTAINER',
  'TIME_GRAIN',
  'FIELD',
  'PARENT',
  'SPACER',
  'DIVIDER',
  'CONTAINER',
] as const;
export const BREAKPOINTS = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;

/** Grid coordinates are bounded so no stored dashboard can ask a renderer for an absurd canvas. */
export const MAX_GRID = 10_000;

const int = (min: number, max: number) =>
  v.pipe(v.number(), v.integer('Expected an integer'), v.minValue(min), v.maxValue(max));

const stringMap = objectOf(
  (x): x is string => typeof x === 'string',
  { type: 'string' },
  'an object of strings',
);

const text = (max: number) => v.nullish(v.pipe(v.string(), v.maxLength(max)));

// ---- DashboardWidget ----

export const widgetPosition = obj({
  x: int(0, MAX_GRID),
  y: int(0, MAX_GRID),
  w: int(1, MAX_GRID),
  h: int(1, MAX_GRID),
});

export type DashboardWidget = {
  id: string;
  type: (typeof WIDGET_TYPES)[number];
  position: v.InferOutput<typeof widgetPosition>;
  config?: Record<string, unknown> | null;
  style?: Record<string, unknown> | null;
  responsiveLayouts?: Partial<
    Record<(typeof BREAKPOINTS)[number], v.InferOutput<typeof widgetPosition> | null>
  > | null;
};

const widgetId = v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(255));

const widgetEntries = {
  type: v.picklist(WIDGET_TYPES),
  position: widgetPosition,
  config: v.nullish(boundedObject(WIDGET_CONFIG_LIMITS)),
  style: v.nullish(boundedObject(WIDGET_STYLE_LIMITS)),
  responsiveLayouts: v.nullish(
    obj(
      Object.fromEntries(BREAKPOINTS.map((b) => [b, v.nullish(widgetPosition)])) as {
        [K in (typeof BREAKPOINTS)[number]]: v.NullishSchema<typeof widgetPosition, undefined>;
      },
    ),
  ),
};

/** A stored (and answered) widget: it always has its id. */
export const dashboardWidget = obj({ id: widgetId, ...widgetEntries });

/** A widget as a request sends it (Cube's DashboardWidgetDraftInput): `id` may be left out. */
export const dashboardWidgetInput = obj({ id: v.nullish(widgetId), ...widgetEntries });

// ---- DashboardLayout ----

const perBreakpoint = (min: number) =>
  obj(
    Object.fromEntries(BREAKPOINTS.map((b) => [b, v.nullish(int(min, MAX_GRID))])) as {
      [K in (typeof BREAKPOINTS)[number]]: v.NullishSchema<ReturnType<typeof int>, undefined>;
    },
  );

/** `[horizontal, vertical]` in pixels, as grid layouts take them. */
const pair = v.pipe(v.array(int(0, MAX_GRID)), v.length(2, 'Expected [horizontal, vertical]'));

export const dashboardLayout = obj({
  breakpoints: v.nullish(perBreakpoint(0)),
  cols: v.nullish(perBreakpoint(1)),
  containerPadding: v.nullish(pair),
  margin: v.nullish(pair),
  rowHeight: v.nullish(int(1, MAX_GRID)),
});

// ---- DashboardTheme (request form: every leaf a nullable string) ----

const border = obj({
  color: cssColor,
  radius: cssLengths,
  style: cssBorderStyle,
  width: cssLengths,
});
const titleStyle = obj({
  color: cssColor,
  fontFamily: cssFontFamily,
  fontSize: cssFontSize,
  fontWeight: cssFontWeight,
});

/** Every leaf is nullable and held to a CSS-safe grammar (theme-grammar.ts). */
export const dashboardTheme = obj({
  backgroundColor: cssColor,
  fontFamily: cssFontFamily,
  primaryColor: cssColor,
  themeId: cssThemeId,
  dashboard: v.nullish(obj({ backgroundColor: cssColor, padding: cssLengths })),
  controls: v.nullish(
    obj({
      backgroundColor: cssColor,
      padding: cssLengths,
      border: v.nullish(border),
      title: v.nullish(titleStyle),
    }),
  ),
  widgets: v.nullish(
    obj({
      backgroundColor: cssColor,
      margin: cssLengths,
      padding: cssLengths,
      border: v.nullish(border),
      text: v.nullish(
        obj({
          codeFontFamily: cssFontFamily,
          color: cssColor,
          fontFamily: cssFontFamily,
          secondaryColor: cssColor,
        }),
      ),
      title: v.nullish(titleStyle),
    }),
  ),
});

// ---- DashboardApp ----

export const dashboardApp = obj({
  entry: text(255),
  files: v.nullish(
    v.pipe(
      stringMap,
      v.check((files) => Object.keys(files).length <= MAX_APP_FILES, `At most ${MAX_APP_FILES} files`),
      v.metadata({ maxProperties: MAX_APP_FILES }),
    ),
  ),
  html: v.nullish(v.string()),
  manifest: v.nullish(
    obj({
      dependencies: v.nullish(stringMap),
      version: v.nullish(int(0, Number.MAX_SAFE_INTEGER)),
    }),
  ),
});

// ---- DashboardConfigInput ----

type WidgetInput = v.InferOutput<typeof dashboardWidgetInput>;

/**
 * The id a widget sent without one gets on save: `<type>-<n>`, the smallest n not taken in the
 * dashboard. Derived from the widgets themselves, so the same request always yields the same ids.
 */
export function assignWidgetIds(widgets: readonly WidgetInput[]): DashboardWidget[] {
  const taken = new Set(widgets.flatMap((w) => (w.id ? [w.id] : [])));
  return widgets.map(({ id, ...rest }) => {
    if (id) return { id, ...rest };
    const stem = rest.type.toLowerCase().replace(/_/g, '-');
    let n = 1;
    while (taken.has(`${stem}-${n}`)) n++;
    const fresh = `${stem}-${n}`;
    taken.add(fresh);
    return { id: fresh, ...rest };
  });
}

const widgetList = v.pipe(
  v.array(dashboardWidgetInput),
  v.maxLength(MAX_WIDGETS, `At most ${MAX_WIDGETS} widgets`),
  // Ids name widgets in layouts and renders: a duplicate is reported at the second occurrence.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = new Set<string>();
    dataset.value.forEach((widget, index) => {
      if (!widget.id) return;
      if (seen.has(widget.id)) {
        addIssue({
          message: `Duplicate widget id "${widget.id}"`,
          path: [
            {
              type: 'array',
              origin: 'value',
              input: dataset.value,
              key: index,
              value: widget,
            },
            { type: 'object', origin: 'value', input: widget, key: 'id', value: widget.id },
          ],
        });
      }
      seen.add(widget.id);
    });
  }),
  v.transform((widgets: WidgetInput[]): DashboardWidget[] => assignWidgetIds(widgets)),
);

/** The whole config is bounded too: its parts' limits add up to more than a row should hold. */
export const dashboardConfigInput = v.pipe(
  obj({
    kind: v.nullish(v.picklist(DASHBOARD_KINDS)),
    title: text(500),
    description: text(10_000),
    settings: v.nullish(boundedObject(SETTINGS_LIMITS)),
    theme: v.nullish(dashboardTheme),
    layout: v.nullish(dashboardLayout),
    widgets: v.nullish(widgetList),
    app: v.nullish(dashboardApp),
  }),
  jsonBounds(DASHBOARD_CONFIG_LIMITS),
  v.metadata(jsonBoundsDoc(DASHBOARD_CONFIG_LIMITS)),
);

/** The response form: the same names, `theme` a free-form object. */
export const dashboardConfigSchema = v.object({
  kind: v.nullish(v.picklist(DASHBOARD_KINDS)),
  title: v.nullish(v.string()),
  description: v.nullish(v.string()),
  settings: v.nullish(boundedObject(SETTINGS_LIMITS)),
  theme: v.nullish(boundedObject(DASHBOARD_CONFIG_LIMITS)),
  layout: v.nullish(dashboardLayout),
  widgets: v.nullish(v.array(dashboardWidget)),
  app: v.nullish(dashboardApp),
});

export type DashboardConfig = v.InferOutput<typeof dashboardConfigInput>;
export type DashboardWidgetPosition = v.InferOutput<typeof widgetPosition>;
export type DashboardLayout = v.InferOutput<typeof dashboardLayout>;
export type DashboardTheme = v.InferOutput<typeof dashboardTheme>;
export type DashboardApp = v.InferOutput<typeof dashboardApp>;

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
