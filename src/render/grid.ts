import type { Breakpoint, GridPosition, GridSpec, RenderInput } from './render.types';
import { BREAKPOINT_NAMES } from './render.types';
import { themeSpacing } from './theme';

// The dashboard's grid: react-grid-layout's Responsive props read from the stored config, the
// breakpoint for a width, and where each widget sits at a breakpoint.

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
/** Most columns a breakpoint may have. */
export const MAX_COLS = 96;
/** Narrowest and widest widths a render is laid out at; a width asked for is clamped to them. */
export const MIN_RENDER_WIDTH = 200;
export const MAX_RENDER_WIDTH = 4_000;
const MAX_ROW_HEIGHT = 2_000;
const MAX_SPACING = 200;

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
