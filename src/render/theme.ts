import { colorOr, parseColor, type Rgba } from './color';
import type { Border, ResolvedTheme, TitleStyle } from './render.types';

export const DEFAULT_FONT_STACK =
  'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';
const CODE_FONT_STACK = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

const PALETTE = ['#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#8b5cf6', '#ec4899', '#14b8a6', '#64748b'];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** "12px", "12" or 12 → 12 (clamped); anything else (em, %, calc…) → the fallback. */
export function parsePx(input: unknown, fallback: number, max = 200): number {
  let n: number | undefined;
  if (typeof input === 'number') n = input;
  else if (typeof input === 'string') {
    const m = /^\s*(\d*\.?\d+)\s*(px)?\s*$/i.exec(input.split(/\s+/).filter(Boolean)[0] ?? '');
    if (m) n = Number(m[1]);
  }
  return n === undefined || !Number.isFinite(n) ? fallback : Math.min(max, Math.max(0, n));
}

// One family of a font-family list: a quoted name (balanced quotes, no quote or backslash
// inside) or a run of plain identifiers. Nothing else can reach a CSS declaration.
const FAMILY = /^(?:"[\w .-]{1,64}"|'[\w .-]{1,64}'|-?[A-Za-z_][\w-]*(?: [A-Za-z_][\w-]*)*)$/;

/**
 * A font-family list in a form safe inside a CSS declaration or an attribute: every family is a
 * plain identifier run or a double-quoted name; null when any family is not (unbalanced or
 * stray quotes, `;`, `{`, `}`, `<`, backslashes, comments…).
 */
export function safeFontList(input: string): string | null {
  if (input.length > 300) return null;
  const names = input.split(',').map((n) => n.trim().replace(/\s+/g, ' '));
  if (names.length === 0 || names.some((n) => !FAMILY.test(n))) return null;
  return names.map((n) => (n.startsWith("'") ? `"${n.slice(1, -1)}"` : n)).join(', ');
}

/** A font-family list a theme may name, before the fallback stack; anything else is ignored. */
export function parseFontFamily(input: unknown, fallback: string): string {
  if (typeof input !== 'string') return fallback;
  const s = input.trim();
  if (!s || s.length > 200) return fallback;
  const list = safeFontList(s);
  return list ? `${list}, ${fallback}` : fallback;
}

function parseWeight(input: unknown, fallback: number): number {
  if (input === 'bold' || input === 'bolder') return 700;
  if (input === 'normal' || input === 'lighter') return 400;
  const n = typeof input === 'number' ? input : typeof input === 'string' ? Number(input) : Number.NaN;
  return Number.isFinite(n) && n >= 100 && n <= 1000 ? Math.round(n / 100) * 100 : fallback;
}

function border(input: unknown, fallback: Border): Border {
  const b = obj(input);
  const style = typeof b.style === 'string' ? b.style.trim().toLowerCase() : '';
  return {
    color: parseColor(b.color) ?? fallback.color,
    width: parsePx(b.width, fallback.width, 20),
    radius: parsePx(b.radius, fallback.radius, 100),
    style:
      style === 'solid' || style === 'dashed' || style === 'dotted' || style === 'none'
        ? style
        : fallback.style,
  };
}

function title(input: unknown, fallback: TitleStyle, fontFamily: string): TitleStyle {
  const t = obj(input);
  return {
    color: parseColor(t.color) ?? fallback.color,
    fontFamily: parseFontFamily(t.fontFamily, fontFamily),
    fontSize: parsePx(t.fontSize, fallback.fontSize, 72) || fallback.fontSize,
    fontWeight: parseWeight(t.fontWeight, fallback.fontWeight),
  };
}

/**
 * The theme with every leaf parsed and defaulted. Theme leaves are free strings; a value that is
 * not a colour / pixel length / font list the renderer understands falls back to the default, so
 * no theme can break out of an SVG attribute, a CSS declaration or a PDF operator.
 */
export function resolveTheme(input: unknown): ResolvedTheme {
  const t = obj(input);
  const dashboard = obj(t.dashboard);
  const widgets = obj(t.widgets);
  const controls = obj(t.controls);
  const text = obj(widgets.text);
  const fontFamily = parseFontFamily(t.fontFamily, DEFAULT_FONT_STACK);
  const primary = colorOr(t.primaryColor, '#4f46e5');
  const widgetBorder = border(widgets.border, {
    color: colorOr(null, '#e3e5ea'),
    width: 1,
    radius: 8,
    style: 'solid',
  });
  const widgetTitle = title(
    widgets.title,
    { color: colorOr(null, '#1f2430'), fontFamily, fontSize: 14, fontWeight: 600 },
    fontFamily,
  );
  const background: Rgba = parseColor(dashboard.backgroundColor) ?? colorOr(t.backgroundColor, '#f4f5f7');
  const widgetBackground = colorOr(widgets.backgroundColor, '#ffffff');
  return {
    background,
    primary,
    fontFamily,
    palette: [primary, ...PALETTE.map((c) => colorOr(c, c))],
    widget: {
      background: widgetBackground,
      padding: parsePx(widgets.padding, 12, 100),
      border: widgetBorder,
      title: widgetTitle,
      text: {
        color: colorOr(text.color, '#374151'),
        secondary: colorOr(text.secondaryColor, '#6b7280'),
        fontFamily: parseFontFamily(text.fontFamily, fontFamily),
        codeFontFamily: parseFontFamily(text.codeFontFamily, CODE_FONT_STACK),
      },
    },
    control: {
      background: parseColor(controls.backgroundColor) ?? widgetBackground,
      padding: parsePx(controls.padding, 10, 100),
      border: border(controls.border, widgetBorder),
      title: title(controls.title, widgetTitle, fontFamily),
    },
  };
}

/** Theme spacing that overrides the layout's, when the theme sets it (see decisions). */
export function themeSpacing(input: unknown): { padding?: number; margin?: number } {
  const t = obj(input);
  const padding = obj(t.dashboard).padding;
  const margin = obj(t.widgets).margin;
  const px = (value: unknown) => {
    const n = value == null ? Number.NaN : parsePx(value, Number.NaN, 200);
    return Number.isNaN(n) ? undefined : n;
  };
  return { padding: px(padding), margin: px(margin) };
}
