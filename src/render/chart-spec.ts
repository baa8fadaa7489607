import { type ColumnFormat, type ColumnFormats, formatFor, formatValue } from './column-format';
import type { ChartSpec, ChartType } from './render.types';
import { CURRENCY_SYMBOLS, cleanText } from './text';

const TYPES: Record<string, ChartType> = {
  bar: 'bar',
  column: 'bar',
  line: 'line',
  area: 'area',
  pie: 'pie',
  donut: 'donut',
  doughnut: 'donut',
  kpi: 'kpi',
  number: 'kpi',
  metric: 'kpi',
  table: 'table',
};

function chartType(name: unknown): ChartType | undefined {
  if (typeof name !== 'string') return undefined;
  const key = name.toLowerCase();
  return Object.hasOwn(TYPES, key) ? TYPES[key] : undefined;
}

export const MAX_CHART_ROWS = 500;
export const MAX_CHART_SERIES = 10;

type Row = Record<string, unknown>;

/** A number, or a numeric string (warehouses often return decimals as strings). */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && value.length < 40) {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.slice(0, 200);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value).slice(0, 200);
}

const isRow = (r: unknown): r is Row => !!r && typeof r === 'object' && !Array.isArray(r);

/** The spec's `labels`: `{<field key>: display name}`, names cleaned and bounded. */
function labelsOf(value: unknown): Map<string, string> {
  const labels = new Map<string, string>();
  if (!isRow(value)) return labels;
  for (const [key, name] of Object.entries(value).slice(0, 200)) {
    const text = typeof name === 'string' ? cleanText(name, 200).replace(/\s+/g, ' ').trim() : '';
    if (text) labels.set(key, text);
  }
  return labels;
}

/** A measure's cells without a format: thousands separated, at most two decimals. */
const MEASURE_FORMAT: ColumnFormat = {
  type: 'number',
  decimals: null,
  currency: null,
  prefix: '',
  suffix: '',
  compact: false,
  thousandsSeparator: true,
};

/** Currency symbols a spec's `unit` may be, and the currency each stands for. */
const CURRENCY_UNITS: Record<string, string> = Object.fromEntries(
  Object.entries(CURRENCY_SYMBOLS).map(([code, symbol]) => [symbol, code]),
);

/** A currency's format: its symbol, thousands separated, its fixed decimals (2; 0 for JPY, …). */
const currencyFormat = (currency: string): ColumnFormat => ({
  ...MEASURE_FORMAT,
  type: 'currency',
  currency,
});

/** The spec's `formats`: `{<field key>: format name}`, the data model's formats of its members. */
function modelFormatsOf(value: unknown): Map<string, string> {
  const formats = new Map<string, string>();
  if (!isRow(value)) return formats;
  for (const [key, name] of Object.entries(value).slice(0, 200)) {
    if (typeof name === 'string' && name.length <= 40) formats.set(key, name);
  }
  return formats;
}

const GRAIN_NAMES = new Set(['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

/** The spec's `grains`: `{<time field key>: granularity}` (what a live report's time buckets are). */
function grainsOf(value: unknown): Map<string, string> {
  const grains = new Map<string, string>();
  if (!isRow(value)) return grains;
  for (const [key, grain] of Object.entries(value).slice(0, 50)) {
    if (typeof grain === 'string' && GRAIN_NAMES.has(grain)) grains.set(key, grain);
  }
  return grains;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A time bucket (`2024-03-01T00:00:00.000`, local time) as a person reads it at its grain. */
export function bucketLabel(value: string, grain: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(value);
  if (!m) return cellText(value);
  const [, year = '', month = '', day = '', hour = '00', minute = '00'] = m;
  switch (grain) {
    case 'year':
      return year;
    case 'quarter':
      return `Q${Math.floor((Number(month) - 1) / 3) + 1} ${year}`;
    case 'month':
      return `${MONTHS[Number(month) - 1] ?? month} ${year}`;
    case 'week':
    case 'day':
      return `${year}-${month}-${day}`;
    default:
      return `${year}-${month}-${day} ${hour}:${minute}`;
  }
}

/**
 * A report snapshot's `spec`, as the renderer reads it: JSON
 * `{"type": "bar"|"line"|"area"|"pie"|"donut"|"kpi"|"table", "data": [{...}, ...], "x"?: field,
 * "y"?: field | [fields], "unit"?: string, "labels"?: {field: name}, "grains"?: {field: granularity},
 * "formats"?: {field: the data model's format, e.g. "currency"}}`;
 * `typeOverride` (a widget's
 * `config.chartType`) replaces the spec's type; `formats` (the report's column formats) write its
 * numbers. Returns null where there is nothing to draw (not JSON, an unknown type, no rows, no
 * numbers), and the widget is then drawn as a titled frame.
 */
export function parseChartSpec(
  spec: unknown,
  typeOverride?: unknown,
  formats: ColumnFormats = new Map(),
): ChartSpec | null {
  if (typeof spec !== 'string' || spec.length === 0 || spec.length > 2_000_000) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(spec);
  } catch {
    return null;
  }
  if (!isRow(parsed)) return null;
  // A widget may show its report another way (`config.chartType`); the spec's type is the default.
  const type = chartType(typeOverride) ?? chartType(parsed.type);
  if (!type || !Array.isArray(parsed.data)) return null;
  const rows = parsed.data.filter(isRow).slice(0, MAX_CHART_ROWS);
  if (rows.length === 0) return null;
  const first = rows[0] as Row;
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, 50);
  const unit = typeof parsed.unit === 'string' ? parsed.unit.slice(0, 16) : null;
  const labels = labelsOf(parsed.labels);
  const label = (key: string) => labels.get(key) ?? key;
  const grains = grainsOf(parsed.grains);
  /** A cell as text: a time bucket named for its grain (`Mar 2024`), anything else as it is. */
  const text = (key: string, value: unknown) => {
    const grain = grains.get(key);
    return grain && typeof value === 'string' ? bucketLabel(value, grain) : cellText(value);
  };
  // A live report's values (`y`) are measures: numbers without a format of their own read as numbers.
  const measures = new Set(
    (typeof parsed.y === 'string' ? [parsed.y] : Array.isArray(parsed.y) ? parsed.y : []).filter(
      (k): k is string => typeof k === 'string',
    ),
  );
  // A field without a column format of its own is written as the model's `format: currency` or a
  // currency `unit` says: one rendering everywhere it is shown (KPI, tooltip, table cell), with
  // its currency's fixed decimals. Column formats (the report's preferences) come first.
  const modelFormats = modelFormatsOf(parsed.formats);
  const unitCurrency =
    unit !== null && Object.hasOwn(CURRENCY_UNITS, unit) ? CURRENCY_UNITS[unit] : undefined;
  const unitFormat = unitCurrency ? currencyFormat(unitCurrency) : null;
  const modelCurrency = (key: string) =>
    modelFormats.get(key) === 'currency' ? (unitFormat ?? currencyFormat('USD')) : null;

  if (type === 'table') {
    const columns = keys.slice(0, 12);
    if (columns.length === 0) return null;
    // Measures in the chart's currency `unit` when it names one, as its series are.
    const measureFormat = unitFormat ?? MEASURE_FORMAT;
    const columnFormats = columns.map(
      (c) =>
        formatFor(formats, c, labels.get(c)) ??
        modelCurrency(c) ??
        (measures.has(c) ? measureFormat : undefined),
    );
    // Numbers line up on the right, as in a spreadsheet; text on the left.
    const numeric = columns.map((c) => {
      const values = rows.map((r) => r[c]).filter((v) => v !== null && v !== undefined && v !== '');
      return values.length > 0 && values.every((v) => toNumber(v) !== null);
    });
    const cell = (value: unknown, i: number) => {
      const format = columnFormats[i];
      const n = format ? toNumber(value) : null;
      return format && n !== null ? formatValue(n, format) : text(columns[i] as string, value);
    };
    return {
      type,
      categories: [],
      series: [],
      columns: columns.map(label),
      rows: rows.map((r) => columns.map((c, i) => cell(r[c], i))),
      numeric,
      unit,
    };
  }

  const xKey =
    typeof parsed.x === 'string' && keys.includes(parsed.x)
      ? parsed.x
      : keys.includes('label')
        ? 'label'
        : keys.find((k) => typeof first[k] === 'string' && toNumber(first[k]) === null);
  const requested = typeof parsed.y === 'string' ? [parsed.y] : Array.isArray(parsed.y) ? parsed.y : null;
  let yKeys = requested
    ? requested.filter((k): k is string => typeof k === 'string' && keys.includes(k))
    : keys.includes('value')
      ? ['value']
      : keys.filter((k) => k !== xKey && rows.some((r) => toNumber(r[k]) !== null));
  yKeys = yKeys.filter((k) => k !== xKey).slice(0, MAX_CHART_SERIES);
  if (type === 'pie' || type === 'donut' || type === 'kpi') yKeys = yKeys.slice(0, 1);
  // Beyond ±1e15 an axis can no longer be labelled (and sums could overflow): such values are capped.
  const capped = (v: number | null) => (v === null ? null : Math.max(-1e15, Math.min(1e15, v)));
  const series = yKeys.map((k) => ({
    key: k,
    name: label(k),
    values: rows.map((r) => capped(toNumber(r[k]))),
    format: formatFor(formats, k, labels.get(k)) ?? modelCurrency(k) ?? unitFormat,
  }));
  if (!series.some((s) => s.values.some((v) => v !== null))) return null;
  // Without a category field a KPI is captioned by its series; other charts number their points.
  const categories = rows.map((r, i) => (xKey ? text(xKey, r[xKey]) : type === 'kpi' ? '' : String(i + 1)));
  return { type, categories, series, columns: [], rows: [], unit };
}
