import type { Rgba } from './color';
import type { ColumnFormat } from './column-format';

/**
 * The dashboard model the renderer draws. Domains adapt their records to it (a stored dashboard
 * configuration fits as it is); every part is read defensively, so unknown or broken values fall
 * back to defaults instead of failing.
 */
export interface RenderConfig {
  title?: string | null;
  description?: string | null;
  /** react-grid-layout's Responsive props: breakpoints, cols, rowHeight, margin, containerPadding. */
  layout?: unknown;
  /** Free-form theme; only understood, safe values are used (see theme.ts). */
  theme?: unknown;
  widgets?: readonly unknown[] | null;
}

/** A report's frozen data as the renderer reads it; a draft's live reports fit too. */
export interface RenderSnapshot {
  reportId: number;
  id?: number;
  name?: string;
  title?: string | null;
  /** The chart of the report as JSON text (see chart-spec.ts). */
  spec?: string | null;
  /** The report's Cube query as JSON text, when it has one (carried along; `spec` is what is drawn). */
  jsonQuery?: string | null;
  /** Why the report's query failed: the chart is drawn as "Could not load data" with this message. */
  error?: string | null;
  /** `columnFormats`: how numeric fields are written (see column-format.ts). */
  preferences?: { columnFormats?: unknown } | null;
}

/** Who is looking (the viewer page); deliveries have no viewer. */
export interface RenderViewer {
  displayName?: string | null;
  picture?: string | null;
  initials?: string | null;
}

/** Everything a dashboard render depends on. */
export interface RenderInput {
  config: RenderConfig | null | undefined;
  reportSnapshots?: readonly RenderSnapshot[] | null;
  /** The published dashboard's title/description; the config's own are used when absent. */
  title?: string | null;
  description?: string | null;
  viewer?: RenderViewer | null;
  /** The effective settings (a session's `showDashboardChat` already resolved against the account). */
  settings?: { showDashboardChat?: boolean | null } | null;
  /** Current FILTER values: `{<widgetId or member>: value}` or `[{widgetId|member, value|values}]`. */
  filters?: unknown;
  /** Current TIME_GRAIN values: `{<widgetId or member>: grain}` or `[{widgetId|member, value|grain}]`. */
  timeGrains?: unknown;
  /** When the data was read (ISO 8601): PNG/PDF say "Data as of <time>". */
  dataTime?: string | null;
  /** The IANA zone `dataTime` is written in (the account's time zone policy); UTC when absent. */
  timeZone?: string | null;
}

export const BREAKPOINT_NAMES = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;
export type Breakpoint = (typeof BREAKPOINT_NAMES)[number];

/** A widget's place on the grid, in grid units. */
export interface GridPosition {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A box in pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Border {
  color: Rgba;
  width: number;
  radius: number;
  style: 'solid' | 'dashed' | 'dotted' | 'none';
}

export interface TitleStyle {
  color: Rgba;
  fontFamily: string;
  fontSize: number;
  fontWeight: number;
}

export interface ResolvedTheme {
  background: Rgba;
  primary: Rgba;
  fontFamily: string;
  /** Series colours, the primary colour first. */
  palette: Rgba[];
  widget: {
    background: Rgba;
    padding: number;
    border: Border;
    title: TitleStyle;
    text: { color: Rgba; secondary: Rgba; fontFamily: string; codeFontFamily: string };
  };
  control: { background: Rgba; padding: number; border: Border; title: TitleStyle };
}

export type ChartType = 'bar' | 'line' | 'area' | 'pie' | 'donut' | 'kpi' | 'table';

/** A report snapshot's spec, parsed into what a chart draws (see docs/rendering.md). */
export interface ChartSpec {
  type: ChartType;
  categories: string[];
  /** `key`: the field; `name`: its label (the spec's `labels`), else the key. */
  series: { key: string; name: string; values: (number | null)[]; format: ColumnFormat | null }[];
  /** Table charts: the column names (labels) and the cells as text (formatted). */
  columns: string[];
  rows: string[][];
  /** Table charts: which columns hold numbers (aligned right); absent: none. */
  numeric?: boolean[];
  unit: string | null;
}

export type WidgetContent =
  | { kind: 'text'; text: string }
  /** `applied`: how the header names the value in effect ("Country: FR"), null when none is set. */
  | { kind: 'control'; control: 'filter' | 'timeGrain'; label: string; value: string; applied: string | null }
  | { kind: 'chart'; chart: ChartSpec }
  /**
   * A titled frame: a chart without data (or whose query failed: `detail` is the message), an AI
   * widget, a (tabs) container or parent.
   */
  | { kind: 'frame'; caption: string; tabs: string[]; detail?: string }
  /** A FIELD: its label over its value. */
  | { kind: 'field'; label: string; value: string }
  /** A DIVIDER: a rule across the box (down it when the box is taller than wide). */
  | { kind: 'divider' }
  /** A SPACER: takes its place on the grid and draws nothing. */
  | { kind: 'spacer' };

export interface LaidOutWidget {
  /** Position in the config's `widgets` array (stable ids for the HTML). */
  index: number;
  id: string;
  type: string;
  title: string | null;
  grid: GridPosition;
  rect: Rect;
  content: WidgetContent;
}

export interface GridSpec {
  breakpoints: Record<Breakpoint, number>;
  cols: Record<Breakpoint, number>;
  rowHeight: number;
  margin: [number, number];
  padding: [number, number];
}

/** What PNG and PDF write above the grid (and a PDF on every page). */
export interface DashboardHeader {
  title: string;
  description: string | null;
  /** The filters and time grains in effect and the data's time: "Country: FR · Time grain: Week · Data as of …". */
  context: string | null;
  /** `context` wrapped to the render's width (at most three lines). */
  contextLines: string[];
  height: number;
}

export interface DashboardLayout {
  width: number;
  height: number;
  breakpoint: Breakpoint;
  grid: GridSpec;
  theme: ResolvedTheme;
  header: DashboardHeader | null;
  widgets: LaidOutWidget[];
  /** Widgets dropped or cut because the dashboard is taller than a render may be. */
  truncated: boolean;
}
