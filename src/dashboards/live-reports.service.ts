import { type LoadedResult, loadQueries } from '../data-api/data.service';
import type { DataScope } from '../data-api/data-scope';
import type { RenderSnapshot } from '../render/render.types';
import { GRANULARITIES } from '../semantic/model/model.types';
import type { ControlFilter } from '../semantic/query/controls';
import type { CubeQuery } from '../semantic/query/query.types';
import {
  applyReportFields,
  comparisonQuery,
  type PeriodComparisonField,
  type ReportFields,
} from '../semantic/query/report-fields';
import { type DashboardControls, queryControls } from './controls';
import { parseJsonObject, reportRefs, widgetsOf } from './dashboard-widgets';

/** Rows a live chart carries: more than any chart draws, few enough for an embed load's answer. */
export const MAX_LIVE_ROWS = 1_000;
/** Queries one load runs at most (a dashboard with more charts shows the rest without data). */
export const MAX_LIVE_REPORTS = 50;
/** Period comparisons one report computes at most (each is a query of its own). */
const MAX_COMPARISONS = 4;

/**
 * A report as a dashboard holds it: a published snapshot, or a draft's report as it is now.
 * `spec` holds static `data` rows when the report has no `jsonQuery`, run for each viewer.
 */
export interface DashboardReport
  extends Pick<RenderSnapshot, 'reportId' | 'id' | 'name' | 'title' | 'spec' | 'jsonQuery'> {
  fillMissingRows?: ReportFields['fillMissingRows'];
  periodComparisons?: unknown;
}

/** A report with its data for this load: `spec` holds its rows, or `error` why it has none. */
export type LiveReport<R extends DashboardReport = DashboardReport> = R & { error?: string | null };

export interface LiveDashboard<R extends DashboardReport> {
  reportSnapshots: LiveReport<R>[];
  /** When the oldest of the data shown was read from the data source (ISO); null when nothing ran. */
  dataTime: string | null;
}

type Obj = Record<string, unknown>;

/** The reports the given widgets show, by report id and snapshot id (null: every report). */
function shownReports(config: unknown, widgetIds: readonly string[] | undefined): Set<number> | null {
  if (!widgetIds) return null;
  const wanted = new Set(widgetIds);
  return new Set(
    widgetsOf(config)
      .filter((w) => wanted.has(w.widgetId))
      .flatMap(reportRefs),
  );
}

/**
 * The chart a report's query answers: its settings, the rows, and what the renderer needs to
 * read them (the category and value fields when not set, display names, time grains).
 */
export function liveSpec(
  settings: Obj,
  result: LoadedResult,
  rows: Record<string, unknown>[] = result.data,
  comparisons: readonly PeriodComparisonField[] = [],
): string {
  const query = result.query;
  const grains: Record<string, string> = {};
  for (const td of query.timeDimensions) {
    if (td.granularity) grains[`${td.name}.${td.granularity}`] = td.granularity;
  }
  const timeKeys = Object.keys(grains);
  // A field named with another grain (saved as `….month`, shown by week) is the current grain's.
  const regrained = (field: unknown) => {
    if (typeof field !== 'string') return field;
    const td = query.timeDimensions.find((t) => t.granularity && field.startsWith(`${t.name}.`));
    return td && GRANULARITIES.includes(field.slice(td.name.length + 1) as never)
      ? `${td.name}.${td.granularity}`
      : field;
  };
  const x =
    typeof settings.x === 'string' ? regrained(settings.x) : (timeKeys[0] ?? query.dimensions[0]?.name);
  const y = Array.isArray(settings.y)
    ? settings.y.map(regrained)
    : settings.y !== undefined
      ? regrained(settings.y)
      : query.measures.map((m) => m.name);
  const labels: Record<string, string> = {};
  const a = result.annotation;
  for (const group of [a.measures, a.dimensions, a.timeDimensions]) {
    for (const [key, value] of Object.entries(group)) labels[key] = value.shortTitle || value.title;
  }
  // The model's formats (`format: currency`), so the chart writes a member the way the model says.
  const formats: Record<string, string> = {};
  for (const group of [a.measures, a.dimensions]) {
    for (const [key, value] of Object.entries(group)) {
      if (typeof value.format === 'string') formats[key] = value.format;
    }
  }
  for (const c of comparisons) {
    const title = labels[c.measure] ?? c.measure;
    labels[`${c.measure}.previousValue`] = `${title} (previous)`;
    labels[`${c.measure}.change`] = `${title} change`;
    labels[`${c.measure}.percentChange`] = `${title} % change`;
  }
  // A time dimension answers under two keys; a table shows the one with its grain.
  const data = rows.slice(0, MAX_LIVE_ROWS).map((row) => {
    const shown: Obj = {};
    for (const [key, value] of Object.entries(row)) {
      if (!(key in grains) && timeKeys.some((t) => t.startsWith(`${key}.`))) continue;
      shown[key] = value;
    }
    return shown;
  });
  const base = { ...settings, ...(x ? { x } : {}), y, labels: { ...labels, ...(settings.labels as Obj) } };
  return JSON.stringify({ ...base, grains, formats: { ...formats, ...(settings.formats as Obj) }, data });
}

/**
 * A dashboard with live data: every report that has a query (`jsonQuery`) runs through the
 * semantic layer for the scope's caller (their data access policies apply), under the
 * dashboard's controls: filters narrow each query they can, time grains change the granularity of
 * charts on their time dimension, `locked` filters refuse a query of their cube they cannot
 * narrow. The queries run concurrently (the result cache serves repeats). Reports without a query
 * keep their static rows. A query that fails leaves its report without rows and with an `error`;
 * `options.widgetIds` runs only the reports those widgets show (a control changed), leaving
 * the others out.
 */
export async function liveDashboard<R extends DashboardReport>(
  scope: DataScope,
  dashboard: { config: unknown; reportSnapshots: readonly R[] },
  controls: DashboardControls,
  options: {
    widgetIds?: readonly string[];
    locked?: readonly ControlFilter[];
    renew?: boolean;
    /** The zone of queries that name none (the account's time zone policy); UTC when absent. */
    timezone?: string;
  } = {},
): Promise<LiveDashboard<R>> {
  const shown = shownReports(dashboard.config, options.widgetIds);
  const reports = dashboard.reportSnapshots.filter(
    (r) => !shown || shown.has(r.reportId) || (r.id !== undefined && shown.has(r.id)),
  );
  const live: { report: R; settings: Obj; query: CubeQuery; comparisons: Comparison[] }[] = [];
  const answers = new Map<R, LiveReport<R>>();
  for (const report of reports) {
    if (!report.jsonQuery) {
      answers.set(report, report);
      continue;
    }
    const query = parseJsonObject(report.jsonQuery);
    if (!query || live.length >= MAX_LIVE_REPORTS) {
      answers.set(report, {
        ...report,
        error: query ? 'Too many charts on this dashboard' : 'Invalid query',
      });
      continue;
    }
    const bounded = boundedQuery(query as CubeQuery, options.timezone);
    live.push({
      report,
      settings: parseJsonObject(report.spec) ?? {},
      query: bounded,
      comparisons: comparisonsOf(report, bounded, scope.now),
    });
  }
  // One call for every query of the load: the reports' and their period comparisons'.
  const queries = live.flatMap((l) => [l.query, ...l.comparisons.flatMap((c) => (c.query ? [c.query] : []))]);
  const outcomes = await loadQueries(scope, queries, {
    controls: queryControls(controls, options.locked),
    renew: options.renew,
    together: true,
  });
  let next = 0;
  let dataTime: string | null = null;
  for (const { report, settings, comparisons } of live) {
    const outcome = outcomes[next++];
    const previous = comparisons.map((c) => (c.query ? outcomes[next++] : undefined));
    if (!outcome) continue;
    if (!outcome.ok) {
      answers.set(report, { ...report, spec: JSON.stringify(settings), error: outcome.error.message });
      continue;
    }
    const refreshed = outcome.result.lastRefreshTime;
    if (dataTime === null || refreshed < dataTime) dataTime = refreshed;
    const computed = applyReportFields({
      rows: outcome.result.data,
      query: outcome.result.query,
      fields: {
        fillMissingRows: report.fillMissingRows ?? null,
        periodComparisons: comparisons.map((c) => c.field),
      },
      comparisonRows: previous.map((p) => (p?.ok ? p.result.data : [])),
    });
    const failed = [
      ...comparisons.flatMap((c) => (c.error ? [c.error] : [])),
      ...previous.flatMap((p) => (p && !p.ok ? [p.error.message] : [])),
    ];
    answers.set(report, {
      ...report,
      spec: liveSpec(
        settings,
        outcome.result,
        computed.rows,
        comparisons.map((c) => c.field),
      ),
      // The rows are shown; what could not be computed on them is said, not hidden.
      error: [...failed, ...computed.errors].join('; ') || null,
    });
  }
  return { reportSnapshots: reports.map((r) => answers.get(r) ?? r), dataTime };
}

/** A period comparison of a report and the query that reads its earlier period (or why there is none). */
interface Comparison {
  field: PeriodComparisonField;
  query?: CubeQuery;
  error?: string;
}

function comparisonsOf(report: DashboardReport, query: CubeQuery, now: Date): Comparison[] {
  const fields = Array.isArray(report.periodComparisons)
    ? (report.periodComparisons as PeriodComparisonField[])
    : [];
  return fields.slice(0, MAX_COMPARISONS).map((field, index) => {
    try {
      return { field, query: comparisonQuery(query, field, { now }) };
    } catch (err) {
      return {
        field,
        error: `periodComparisons[${index}]: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  });
}

/**
 * A chart needs no more rows than it can carry: the query's own limit, at most MAX_LIVE_ROWS.
 * A query that names no time zone runs in `timezone` when one is given.
 */
function boundedQuery(query: CubeQuery, timezone: string | undefined): CubeQuery {
  const limit = typeof query.limit === 'number' ? Math.min(query.limit, MAX_LIVE_ROWS) : MAX_LIVE_ROWS;
  return { ...query, limit, ...(timezone && query.timezone == null ? { timezone } : {}) };
}
