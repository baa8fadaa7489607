import { parseChartSpec, toNumber } from './chart-spec';
import { columnFormatsOf } from './column-format';
import type {
  Breakpoint,
  DashboardLayout,
  GridPosition,
  GridSpec,
  LaidOutWidget,
  RenderInput,
  RenderSnapshot,
  WidgetContent,
} from './render.types';
import { BREAKPOINT_NAMES } from './render.types';
import { cleanText, drawableText, wrapText } from './text';
import { resolveTheme, themeSpacing } from './theme';

// react-grid-layout's defaults: DashboardLayout has exactly the shape of its Responsive props.
const DEFAULT_BREAKPOINTS: Record<Breakpoint, number> = { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 };
const DEFAULT_COLS: Record<Breakpoint, number> = { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 };
const DEFAULT_ROW_HEIGHT = 150;
const DEFAULT_MARGIN: [number, number] = [10, 10];

/** Width of PNG/PDF renders: a desktop screen, the lg breakpoint with the default breakpoints. */
export const DEFAULT_RENDER_WIDTH = 1280;
/** A small phone: the narrowest breakpoint's charts are drawn for this width. */
export const NARROW_RENDER_WIDTH = 360;
/** No render is taller than this (memory of the PNG, pages of the PDF); widgets below are cut. */
export const MAX_CANVAS_HEIGHT = 12_000;
export const MAX_COLS = 96;
const MIN_RENDER_WIDTH = 200;
const MAX_RENDER_WIDTH = 4_000;
const MAX_ROW_HEIGHT = 2_000;
const MAX_SPACING = 200;
export const HEADER_TITLE_SIZE = 20;
export const HEADER_DESCRIPTION_SIZE = 13;
export const HEADER_CONTEXT_SIZE = 12;
export const HEADER_CONTEXT_LINE = 18;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const clampInt = (v: unknown, lo: number, hi: number, fallback: number) => {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : fallback;
  return Math.min(hi, Math.max(lo, n));
};

function pair(v: unknown, fallback: [number, number]): [number, number] {
  if (!Array.isArray(v) || v.length < 2) return fallback;
  return [clampInt(v[0], 0, MAX_SPACING, fallback[0]), clampInt(v[1], 0, MAX_SPACING, fallback[1])];
}

/** The config's grid, every value defaulted and clamped to something renderable. */
export function gridSpec(input: RenderInput): GridSpec {
  const layout = obj(input.config?.layout);
  const bps = obj(layout.breakpoints);
  const cols = obj(layout.cols);
  const spacing = themeSpacing(input.config?.theme);
  let margin = pair(layout.margin, DEFAULT_MARGIN);
  // react-grid-layout pads the container by the margin when no padding is given.
  let padding = pair(layout.containerPadding, margin);
  if (spacing.margin !== undefined) margin = [spacing.margin, spacing.margin];
  if (spacing.padding !== undefined) padding = [spacing.padding, spacing.padding];
  return {
    breakpoints: Object.fromEntries(
      BREAKPOINT_NAMES.map((b) => [b, clampInt(bps[b], 0, 100_000, DEFAULT_BREAKPOINTS[b])]),
    ) as Record<Breakpoint, number>,
    cols: Object.fromEntries(
      BREAKPOINT_NAMES.map((b) => [b, clampInt(cols[b], 1, MAX_COLS, DEFAULT_COLS[b])]),
    ) as Record<Breakpoint, number>,
    rowHeight: clampInt(layout.rowHeight, 1, MAX_ROW_HEIGHT, DEFAULT_ROW_HEIGHT),
    margin,
    padding,
  };
}

/** Breakpoints from the widest, as react-grid-layout orders them. */
export function sortedBreakpoints(grid: GridSpec): Breakpoint[] {
  return [...BREAKPOINT_NAMES].sort((a, b) => grid.breakpoints[b] - grid.breakpoints[a]);
}

/**
 * The width each breakpoint's charts are drawn for in the viewer: the narrowest width of its range
 * (its value + 1 px), so the browser only ever scales a chart up within the range and its text never
 * shrinks below the size it was drawn at; the narrowest breakpoint is drawn for a small phone
 * (360 px, within its range), the only one scaled down (below 360 px).
 */
export function breakpointDrawWidths(grid: GridSpec): Record<Breakpoint, number> {
  const sorted = sortedBreakpoints(grid);
  const widths = {} as Record<Breakpoint, number>;
  sorted.forEach((bp, i) => {
    const lower = grid.breakpoints[bp] + 1;
    const wider = sorted[i - 1];
    const upper = wider === undefined ? Number.POSITIVE_INFINITY : grid.breakpoints[wider];
    const drawn = i === sorted.length - 1 ? Math.min(Math.max(NARROW_RENDER_WIDTH, lower), upper) : lower;
    widths[bp] = Math.max(MIN_RENDER_WIDTH, Math.min(MAX_RENDER_WIDTH, drawn));
  });
  return widths;
}

/** react-grid-layout's rule: the widest breakpoint whose value is below the width. */
export function breakpointFor(grid: GridSpec, width: number): Breakpoint {
  const sorted = sortedBreakpoints(grid);
  return sorted.find((b) => width > grid.breakpoints[b]) ?? (sorted[sorted.length - 1] as Breakpoint);
}

function readPosition(v: unknown): GridPosition | null {
  const p = obj(v);
  const ok = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min;
  if (!ok(p.x, 0) || !ok(p.y, 0) || !ok(p.w, 1) || !ok(p.h, 1)) return null;
  return { x: p.x as number, y: p.y as number, w: p.w as number, h: p.h as number };
}

const collide = (a: GridPosition, b: GridPosition) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Each widget's grid position at a breakpoint: its `responsiveLayouts` entry for that breakpoint,
 * else its `position` (the widest layout). A position taken from `position` for a narrower grid
 * is fitted into the columns and moved down below any widget it would overlap; positions given
 * for the breakpoint are kept as they are. `null`: the widget has no usable position.
 */
export function gridPositions(
  widgets: readonly unknown[],
  breakpoint: Breakpoint,
  grid: GridSpec,
): (GridPosition | null)[] {
  const cols = grid.cols[breakpoint];
  const widest = sortedBreakpoints(grid)[0];
  const fitToCols = (p: GridPosition): GridPosition => {
    const w = Math.min(p.w, cols);
    return { x: Math.min(p.x, cols - w), y: p.y, w, h: p.h };
  };
  const result: (GridPosition | null)[] = [];
  const derived: number[] = [];
  widgets.forEach((widget, i) => {
    const w = obj(widget);
    const own = readPosition(obj(w.responsiveLayouts)[breakpoint]);
    const base = readPosition(w.position);
    if (own) result[i] = fitToCols(own);
    else if (base && breakpoint === widest) result[i] = fitToCols(base);
    else if (base) {
      result[i] = fitToCols(base);
      derived.push(i);
    } else result[i] = null;
  });
  const isDerived = new Set(derived);
  const placed = result.filter((p, i): p is GridPosition => p !== null && !isDerived.has(i));
  derived.sort((a, b) => {
    const pa = result[a] as GridPosition;
    const pb = result[b] as GridPosition;
    return pa.y - pb.y || pa.x - pb.x || a - b;
  });
  for (const i of derived) {
    const p = result[i] as GridPosition;
    for (let hit = placed.find((q) => collide(p, q)); hit; hit = placed.find((q) => collide(p, q))) {
      p.y = hit.y + hit.h;
    }
    placed.push(p);
  }
  return result;
}

/** Rows the canvas may hold: the cap on a render's height, in grid rows. */
export function maxRows(grid: GridSpec): number {
  return Math.max(1, Math.floor(MAX_CANVAS_HEIGHT / (grid.rowHeight + grid.margin[1])));
}

// ---- Widget content ----

/**
 * Entries of a render's `filters`/`timeGrains` (a map or a list): the names each goes by (widget
 * id first, as controls look values up), the one to show (its member, else its key) and its value.
 */
function controlEntries(input: unknown): { keys: string[]; name: string; value: unknown }[] {
  const str = (k: unknown): k is string => typeof k === 'string' && k !== '';
  if (Array.isArray(input)) {
    return input.map((entry) => {
      const e = obj(entry);
      const value =
        'value' in e ? e.value : 'values' in e ? e.values : 'grain' in e ? e.grain : e.granularity;
      const keys = [e.widgetId, e.id, e.member, e.dimension].filter(str);
      const name = [e.member, e.dimension, ...keys].find(str) ?? '';
      return { keys, name, value };
    });
  }
  return Object.entries(obj(input)).map(([key, value]) => ({ keys: [key], name: key, value }));
}

function lookupTable(input: unknown): Map<string, unknown> {
  const table = new Map<string, unknown>();
  for (const { keys, value } of controlEntries(input)) {
    for (const key of keys) if (!table.has(key)) table.set(key, value);
  }
  return table;
}

function valueText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) {
    const parts = value.map(valueText).filter((v): v is string => v !== null);
    return parts.length > 0 ? parts.join(', ') : null;
  }
  if (typeof value === 'object') {
    const o = value as Obj;
    return valueText(o.values ?? o.value ?? o.label ?? null);
  }
  return cleanText(String(value), 500);
}

const capitalize = (s: string) => (s ? s[0]?.toUpperCase() + s.slice(1) : s);

function currentValue(
  table: Map<string, unknown>,
  id: string,
  config: Obj,
  keys: string[],
  defaults: string[],
): string | null {
  for (const key of [id, ...keys.map((k) => config[k])]) {
    if (typeof key === 'string' && table.has(key)) {
      const found = valueText(table.get(key));
      if (found !== null) return found;
    }
  }
  for (const k of defaults) {
    const found = valueText(config[k]);
    if (found !== null) return found;
  }
  return null;
}

/** Longest query error shown under "Could not load data". */
export const MAX_ERROR_LENGTH = 200;

/** A snapshot's query error as shown: one line, bounded; null when the query did not fail. */
function errorText(error: unknown): string | null {
  if (typeof error !== 'string') return null;
  const line = cleanText(error, 2_000).replace(/\s+/g, ' ').trim();
  if (!line) return null;
  // By code points, so a cut never splits a surrogate pair.
  const chars = Array.from(line);
  return chars.length > MAX_ERROR_LENGTH
    ? `${chars
        .slice(0, MAX_ERROR_LENGTH - 1)
        .join('')
        .trimEnd()}…`
    : line;
}

function snapshotFor(config: Obj, snapshots: readonly RenderSnapshot[]): RenderSnapshot | undefined {
  const reportId = toNumber(config.reportId);
  const snapshotId = toNumber(config.reportSnapshotId ?? config.snapshotId);
  return snapshots.find(
    (s) => (reportId !== null && s.reportId === reportId) || (snapshotId !== null && s.id === snapshotId),
  );
}

function contentOf(
  type: string,
  id: string,
  config: Obj,
  input: RenderInput,
  tables: { filters: Map<string, unknown>; grains: Map<string, unknown> },
): { content: WidgetContent; fallbackTitle: string | null } {
  switch (type) {
    case 'TEXT':
      return { content: { kind: 'text', text: cleanText(config.text) }, fallbackTitle: null };
    case 'FILTER': {
      const label = cleanText(config.label ?? config.member ?? config.dimension ?? '', 200) || 'Filter';
      const value = currentValue(
        tables.filters,
        id,
        config,
        ['member', 'dimension'],
        ['value', 'values', 'defaultValue', 'defaultValues'],
      );
      // The header names it as its widget does, else by its member as a person reads it.
      const member = config.member ?? config.dimension;
      const name =
        cleanText(config.title ?? config.label ?? '', 200) ||
        (typeof member === 'string' ? cleanText(humanize(member), 200) : '') ||
        'Filter';
      return {
        content: {
          kind: 'control',
          control: 'filter',
          label,
          value: value ?? 'All',
          applied: value === null ? null : `${name}: ${value}`,
        },
        fallbackTitle: label,
      };
    }
    case 'TIME_GRAIN': {
      const label =
        cleanText(config.label ?? config.member ?? config.timeDimension ?? '', 200) || 'Time grain';
      const value = currentValue(
        tables.grains,
        id,
        config,
        ['member', 'timeDimension'],
        ['value', 'grain', 'granularity', 'defaultValue', 'defaultGrain'],
      );
      const name = cleanText(config.title ?? config.label ?? '', 200) || 'Time grain';
      return {
        content: {
          kind: 'control',
          control: 'timeGrain',
          label,
          value: value ? capitalize(value) : 'Auto',
          applied: value ? `${name}: ${capitalize(value)}` : null,
        },
        fallbackTitle: label,
      };
    }
    case 'CHART': {
      const snapshot = snapshotFor(config, input.reportSnapshots ?? []);
      const fallbackTitle = cleanText(snapshot?.title || snapshot?.name || '', 500) || null;
      const error = errorText(snapshot?.error);
      if (error !== null) {
        return {
          content: { kind: 'frame', caption: 'Could not load data', tabs: [], detail: error },
          fallbackTitle,
        };
      }
      const formats = columnFormatsOf(snapshot?.preferences);
      const chart = parseChartSpec(snapshot?.spec, config.chartType, formats);
      return {
        content: chart ? { kind: 'chart', chart } : { kind: 'frame', caption: 'No data', tabs: [] },
        fallbackTitle,
      };
    }
    case 'TABS_CONTAINER': {
      const tabs = (Array.isArray(config.tabs) ? config.tabs : [])
        .slice(0, 12)
        .map((t) => cleanText(typeof t === 'string' ? t : (obj(t).title ?? obj(t).name ?? obj(t).label), 100))
        .filter(Boolean);
      return { content: { kind: 'frame', caption: '', tabs }, fallbackTitle: null };
    }
    case 'AI':
      return { content: { kind: 'frame', caption: 'AI assistant', tabs: [] }, fallbackTitle: null };
    case 'CONTAINER':
    case 'PARENT': {
      const label = cleanText(config.label ?? config.name ?? '', 500) || null;
      return { content: { kind: 'frame', caption: '', tabs: [] }, fallbackTitle: label };
    }
    case 'FIELD': {
      const label = cleanText(config.label ?? config.name ?? config.member ?? config.field ?? '', 200);
      const value =
        currentValue(tables.filters, id, config, ['member', 'field'], ['value', 'text', 'defaultValue']) ??
        '–';
      return { content: { kind: 'field', label, value }, fallbackTitle: null };
    }
    case 'DIVIDER':
      return { content: { kind: 'divider' }, fallbackTitle: null };
    case 'SPACER':
      return { content: { kind: 'spacer' }, fallbackTitle: null };
    default:
      return { content: { kind: 'frame', caption: '', tabs: [] }, fallbackTitle: null };
  }
}

export type WidgetContents = Pick<LaidOutWidget, 'index' | 'id' | 'type' | 'title' | 'content'>[];

/** The widgets with their content, independent of the breakpoint (shared by every output). */
export function widgetContents(input: RenderInput): WidgetContents {
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const tables = { filters: lookupTable(input.filters), grains: lookupTable(input.timeGrains) };
  return widgets.map((widget, index) => {
    const w = obj(widget);
    const config = obj(w.config);
    const id = typeof w.id === 'string' ? w.id : String(index);
    const type = typeof w.type === 'string' ? w.type : 'CHART';
    const { content, fallbackTitle } = contentOf(type, id, config, input, tables);
    // A spacer or a divider has no heading: it draws nothing, or only its rule.
    const untitled = content.kind === 'spacer' || content.kind === 'divider';
    const title = untitled ? null : cleanText(config.title, 500) || fallbackTitle;
    return { index, id, type, title, content };
  });
}

/** A member as a person reads it: `orders.created_at` → "Created at". */
function humanize(member: string): string {
  const last = member.split('.').pop() ?? member;
  return capitalize(last.replace(/[_-]+/g, ' ').trim()) || member;
}

/**
 * The controls in effect as one line: every FILTER and TIME_GRAIN widget with a value (the
 * render's, else its default), then the render's filters and time grains no widget shows (a
 * locked filter, a notification's filter on a member without a control), then the data's time.
 */
function contextOf(input: RenderInput, contents: WidgetContents): string | null {
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const parts: string[] = [];
  const shown = { filter: new Set<string>(), timeGrain: new Set<string>() };
  for (const c of contents) {
    if (c.content.kind !== 'control') continue;
    const config = obj(obj(widgets[c.index]).config);
    const set = shown[c.content.control];
    set.add(c.id);
    for (const k of [config.member, config.dimension, config.timeDimension]) {
      if (typeof k === 'string') set.add(k);
    }
    if (c.content.applied) parts.push(c.content.applied);
  }
  for (const { keys, name, value } of controlEntries(input.filters)) {
    const text = valueText(value);
    if (text !== null && keys.length > 0 && !keys.some((k) => shown.filter.has(k))) {
      parts.push(`${cleanText(humanize(name), 200)}: ${text}`);
    }
  }
  const grains = controlEntries(input.timeGrains).filter(
    (e) => valueText(e.value) !== null && e.keys.length > 0 && !e.keys.some((k) => shown.timeGrain.has(k)),
  );
  for (const { name, value } of grains) {
    const label = grains.length > 1 ? `Time grain (${humanize(name).toLowerCase()})` : 'Time grain';
    parts.push(`${cleanText(label, 200)}: ${capitalize(valueText(value) as string)}`);
  }
  const asOf = dataTimeText(input.dataTime, input.timeZone);
  if (asOf) parts.push(`Data as of ${asOf}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/**
 * An ISO time as "2026-11-25 21:40 UTC", or in `timeZone` as "2026-11-25 22:40 Europe/Berlin";
 * null when it is not a time. A zone the runtime does not know writes UTC.
 */
export function dataTimeText(value: unknown, timeZone?: string | null): string | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return null;
  const two = (n: number) => String(n).padStart(2, '0');
  if (timeZone && timeZone !== 'UTC') {
    try {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-US', {
          timeZone,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
        })
          .formatToParts(ms)
          .map((p) => [p.type, p.value]),
      );
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${timeZone}`;
    } catch {
      // An unknown zone: UTC below.
    }
  }
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

export function headerOf(
  input: RenderInput,
  contents: WidgetContents = widgetContents(input),
): { title: string; description: string | null; context: string | null } | null {
  const title = cleanText(input.title ?? input.config?.title ?? '', 500);
  const description = cleanText(input.description ?? input.config?.description ?? '', 2_000);
  const context = contextOf(input, contents);
  if (!title && !description && !context) return null;
  return { title, description: description || null, context };
}

/**
 * The dashboard laid out at `width` pixels: the breakpoint for that width, each widget's box
 * (react-grid-layout's arithmetic), the resolved theme and the header. PNG and PDF draw this.
 */
export function computeLayout(
  input: RenderInput,
  options: { width?: number; contents?: WidgetContents } = {},
): DashboardLayout {
  const width = Math.round(
    Math.min(MAX_RENDER_WIDTH, Math.max(MIN_RENDER_WIDTH, options.width ?? DEFAULT_RENDER_WIDTH)),
  );
  const grid = gridSpec(input);
  const theme = resolveTheme(input.config?.theme);
  const breakpoint = breakpointFor(grid, width);
  const cols = grid.cols[breakpoint];
  // Callers laying one dashboard out at several widths parse its charts once.
  const contents = options.contents ?? widgetContents(input);
  const rawWidgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const positions = gridPositions(rawWidgets, breakpoint, grid);
  const head = headerOf(input, contents);
  const padding = Math.max(grid.padding[0], 12);
  const contextLines = head?.context
    ? wrapText(drawableText(head.context), HEADER_CONTEXT_SIZE, false, width - padding * 2, 3)
    : [];
  const header = head
    ? {
        ...head,
        contextLines,
        height:
          24 +
          HEADER_TITLE_SIZE +
          (head.description ? HEADER_DESCRIPTION_SIZE + 10 : 0) +
          contextLines.length * HEADER_CONTEXT_LINE,
      }
    : null;
  const top = header?.height ?? 0;

  let [marginX, padX] = [grid.margin[0], grid.padding[0]];
  if (width - marginX * (cols - 1) - padX * 2 < cols) [marginX, padX] = [0, 0];
  const [marginY, padY] = [grid.margin[1], grid.padding[1]];
  const colWidth = (width - marginX * (cols - 1) - padX * 2) / cols;
  const rowLimit = maxRows(grid);
  const round = (n: number) => Math.round(n * 100) / 100;

  let truncated = false;
  let rows = 0;
  const widgets: LaidOutWidget[] = [];
  contents.forEach((c, i) => {
    const pos = positions[i];
    if (!pos) return;
    if (pos.y >= rowLimit) {
      truncated = true;
      return;
    }
    const g = { ...pos };
    if (g.y + g.h > rowLimit) {
      g.h = rowLimit - g.y;
      truncated = true;
    }
    rows = Math.max(rows, g.y + g.h);
    widgets.push({
      ...c,
      grid: g,
      rect: {
        x: round((colWidth + marginX) * g.x + padX),
        y: round(top + (grid.rowHeight + marginY) * g.y + padY),
        w: round(colWidth * g.w + Math.max(0, g.w - 1) * marginX),
        h: round(grid.rowHeight * g.h + Math.max(0, g.h - 1) * marginY),
      },
    });
  });
  const gridHeight = rows > 0 ? rows * grid.rowHeight + (rows - 1) * marginY + padY * 2 : 120;
  return {
    width,
    height: Math.ceil(top + gridHeight),
    breakpoint,
    grid,
    theme,
    header,
    widgets,
    truncated,
  };
}
