import { colorOr, mix, type Rgba, withAlpha } from './color';
import { HEADER_DESCRIPTION_SIZE, HEADER_TITLE_SIZE } from './layout';
import type {
  ChartSpec,
  DashboardLayout,
  LaidOutWidget,
  Rect,
  ResolvedTheme,
  TitleStyle,
} from './render.types';
import { drawableText, fitText, formatNumber, measure, wrapText } from './text';

/**
 * The display list PNG (through SVG) and PDF are drawn from: pixels, y downwards, text positioned
 * at its baseline. One list for both keeps the two outputs identical.
 */
export type SceneNode =
  | {
      kind: 'rect';
      x: number;
      y: number;
      w: number;
      h: number;
      r: number;
      fill?: Rgba;
      stroke?: Rgba;
      strokeWidth?: number;
      dash?: number[];
    }
  | {
      kind: 'text';
      x: number;
      y: number;
      text: string;
      size: number;
      bold: boolean;
      color: Rgba;
      anchor: 'start' | 'middle' | 'end';
    }
  | { kind: 'path'; d: string; fill?: Rgba; stroke?: Rgba; strokeWidth?: number };

/** Nodes that belong together on a page (the header, one widget): a PDF page break never cuts one. */
export interface SceneBlock {
  top: number;
  bottom: number;
  nodes: SceneNode[];
}

export interface Scene {
  width: number;
  height: number;
  background: Rgba;
  blocks: SceneBlock[];
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const WHITE = colorOr(null, '#ffffff');

function text(
  x: number,
  y: number,
  value: string,
  size: number,
  color: Rgba,
  options: { bold?: boolean; anchor?: 'start' | 'middle' | 'end'; maxWidth?: number } = {},
): SceneNode | null {
  const bold = options.bold ?? false;
  const drawable = drawableText(value.replace(/\s*\n\s*/g, ' '));
  const fitted = options.maxWidth === undefined ? drawable : fitText(drawable, size, bold, options.maxWidth);
  if (!fitted.trim()) return null;
  return {
    kind: 'text',
    x: r2(x),
    y: r2(y),
    text: fitted,
    size,
    bold,
    color,
    anchor: options.anchor ?? 'start',
  };
}

const isBold = (t: TitleStyle) => t.fontWeight >= 600;
const push = (nodes: SceneNode[], node: SceneNode | null) => {
  if (node) nodes.push(node);
};

function dashFor(style: string, width: number): number[] | undefined {
  if (style === 'dashed') return [width * 4, width * 3];
  if (style === 'dotted') return [width, width * 2];
  return undefined;
}

// ---- Charts ----

function niceStep(span: number, count: number): number {
  const raw = span / count;
  const exp = 10 ** Math.floor(Math.log10(raw));
  const f = raw / exp;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * exp;
}

/** Round axis ticks spanning [min, max], zero included. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  let lo = Math.min(0, min);
  let hi = Math.max(0, max);
  if (lo === hi) hi = lo + 1;
  const step = niceStep(hi - lo, count);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2 && ticks.length < 20; v += step)
    ticks.push(Math.round(v / step) * step);
  return ticks;
}

function legend(
  nodes: SceneNode[],
  names: string[],
  colors: Rgba[],
  box: Rect,
  theme: ResolvedTheme,
): number {
  let x = box.x;
  const y = box.y;
  for (const [i, name] of names.entries()) {
    const label = drawableText(name);
    const width = Math.min(measure(label, 11), 140);
    if (x + 14 + width > box.x + box.w) break;
    nodes.push({ kind: 'rect', x, y: y + 2, w: 9, h: 9, r: 2, fill: colors[i % colors.length] as Rgba });
    push(nodes, text(x + 13, y + 10, label, 11, theme.widget.text.secondary, { maxWidth: 140 }));
    x += 13 + width + 14;
  }
  return 18;
}

function cartesian(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const colors = theme.palette;
  const secondary = theme.widget.text.secondary;
  let top = box.y;
  if (chart.series.length > 1)
    top += legend(
      nodes,
      chart.series.map((s) => s.name),
      colors,
      box,
      theme,
    );
  const values = chart.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const ticks = niceTicks(Math.min(...values), Math.max(...values));
  const lo = ticks[0] as number;
  const hi = ticks[ticks.length - 1] as number;
  if (ticks.length < 2 || !(hi > lo)) return;
  const labels = ticks.map((t) => formatNumber(t, 'compact', chart.unit));
  const axisWidth = Math.max(...labels.map((l) => measure(l, 10))) + 8;
  const plot = { x: box.x + axisWidth, y: top + 4, w: box.w - axisWidth, h: box.y + box.h - top - 4 - 18 };
  if (plot.w < 20 || plot.h < 20) return;
  const yOf = (v: number) => plot.y + plot.h - ((v - lo) / (hi - lo)) * plot.h;
  const grid = mix(theme.widget.background, theme.widget.text.secondary, 0.18);
  ticks.forEach((t, i) => {
    const y = r2(yOf(t));
    nodes.push({
      kind: 'path',
      d: `M${r2(plot.x)} ${y}H${r2(plot.x + plot.w)}`,
      stroke: grid,
      strokeWidth: 1,
    });
    push(nodes, text(plot.x - 6, y + 3.5, labels[i] as string, 10, secondary, { anchor: 'end' }));
  });
  const n = chart.categories.length;
  const slot = plot.w / n;
  // Category labels: as many as fit side by side, evenly spread.
  const widest = Math.max(...chart.categories.map((c) => Math.min(measure(drawableText(c), 10), 90)));
  const every = Math.max(1, Math.ceil((widest + 8) / slot));
  chart.categories.forEach((c, i) => {
    if (i % every !== 0) return;
    push(
      nodes,
      text(plot.x + slot * (i + 0.5), plot.y + plot.h + 13, c, 10, secondary, {
        anchor: 'middle',
        maxWidth: Math.max(slot * every - 4, 12),
      }),
    );
  });
  const zero = yOf(Math.max(lo, Math.min(0, hi)));
  if (chart.type === 'bar') {
    const groupWidth = slot * 0.72;
    const barWidth = groupWidth / chart.series.length;
    chart.series.forEach((s, si) => {
      const fill = colors[si % colors.length] as Rgba;
      s.values.forEach((v, i) => {
        if (v === null) return;
        const x = plot.x + slot * i + (slot - groupWidth) / 2 + barWidth * si;
        const y = yOf(v);
        nodes.push({
          kind: 'rect',
          x: r2(x),
          y: r2(Math.min(y, zero)),
          w: r2(Math.max(barWidth - (chart.series.length > 1 ? 1 : 0), 0.5)),
          h: r2(Math.max(Math.abs(zero - y), 0.5)),
          r: 0,
          fill,
        });
      });
    });
    return;
  }
  chart.series.forEach((s, si) => {
    const color = colors[si % colors.length] as Rgba;
    const runs: [number, number][][] = [];
    let run: [number, number][] = [];
    s.values.forEach((v, i) => {
      if (v === null) {
        if (run.length) runs.push(run);
        run = [];
        return;
      }
      run.push([r2(plot.x + slot * (i + 0.5)), r2(yOf(v))]);
    });
    if (run.length) runs.push(run);
    for (const points of runs) {
      const line = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${x} ${y}`).join('');
      if (chart.type === 'area' && points.length > 1) {
        const first = points[0] as [number, number];
        const last = points[points.length - 1] as [number, number];
        nodes.push({
          kind: 'path',
          d: `${line}L${last[0]} ${r2(zero)}L${first[0]} ${r2(zero)}Z`,
          fill: withAlpha(color, 0.18),
        });
      }
      if (points.length > 1) nodes.push({ kind: 'path', d: line, stroke: color, strokeWidth: 2 });
      if (points.length <= 40) {
        for (const [x, y] of points) nodes.push({ kind: 'path', d: circlePath(x, y, 2.5), fill: color });
      }
    }
  });
}

function circlePath(cx: number, cy: number, r: number): string {
  return `M${r2(cx - r)} ${r2(cy)}A${r} ${r} 0 1 0 ${r2(cx + r)} ${r2(cy)}A${r} ${r} 0 1 0 ${r2(cx - r)} ${r2(cy)}Z`;
}

function pie(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const values = (chart.series[0]?.values ?? []).map((v) => (v !== null && v > 0 ? v : 0));
  const total = values.reduce((a, b) => a + b, 0);
  const colors = theme.palette;
  const legendWidth = box.w > 260 ? Math.min(160, box.w * 0.4) : 0;
  const radius = Math.min((box.w - legendWidth) / 2, box.h / 2) - 2;
  if (radius < 8) return;
  const cx = box.x + (box.w - legendWidth) / 2;
  const cy = box.y + box.h / 2;
  if (total <= 0) {
    nodes.push({
      kind: 'path',
      d: circlePath(cx, cy, radius),
      stroke: theme.widget.border.color,
      strokeWidth: 1,
    });
  }
  let angle = -Math.PI / 2;
  values.forEach((v, i) => {
    if (v <= 0) return;
    const fill = colors[i % colors.length] as Rgba;
    const sweep = (v / total) * Math.PI * 2;
    if (sweep >= Math.PI * 2 - 1e-6) {
      nodes.push({ kind: 'path', d: circlePath(cx, cy, radius), fill });
    } else {
      const [x1, y1] = [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
      const [x2, y2] = [cx + radius * Math.cos(angle + sweep), cy + radius * Math.sin(angle + sweep)];
      nodes.push({
        kind: 'path',
        d: `M${r2(cx)} ${r2(cy)}L${r2(x1)} ${r2(y1)}A${r2(radius)} ${r2(radius)} 0 ${sweep > Math.PI ? 1 : 0} 1 ${r2(x2)} ${r2(y2)}Z`,
        fill,
        stroke: theme.widget.background,
        strokeWidth: 1,
      });
    }
    angle += sweep;
  });
  if (chart.type === 'donut') {
    nodes.push({ kind: 'path', d: circlePath(cx, cy, radius * 0.58), fill: theme.widget.background });
    push(
      nodes,
      text(
        cx,
        cy + 5,
        formatNumber(total, 'compact', chart.unit),
        Math.min(16, radius * 0.4),
        theme.widget.text.color,
        {
          bold: true,
          anchor: 'middle',
          maxWidth: radius,
        },
      ),
    );
  }
  if (legendWidth > 0) {
    const x = box.x + box.w - legendWidth + 8;
    const rows = Math.floor(box.h / 16);
    chart.categories.slice(0, rows).forEach((c, i) => {
      const y = box.y + (box.h - Math.min(rows, chart.categories.length) * 16) / 2 + i * 16;
      nodes.push({ kind: 'rect', x, y: y + 3, w: 9, h: 9, r: 2, fill: colors[i % colors.length] as Rgba });
      push(nodes, text(x + 14, y + 11, c, 11, theme.widget.text.secondary, { maxWidth: legendWidth - 24 }));
    });
  }
}

function kpi(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const series = chart.series[0];
  const index = series?.values.findIndex((v) => v !== null) ?? -1;
  if (!series || index < 0) return;
  const value = formatNumber(series.values[index] as number, 'full', chart.unit);
  const size = Math.max(12, Math.min(44, box.h * 0.45, (box.w / Math.max(value.length, 1)) * 1.6));
  const cx = box.x + box.w / 2;
  const cy = box.y + box.h / 2;
  push(
    nodes,
    text(cx, cy + size * 0.35, value, size, theme.widget.text.color, {
      bold: true,
      anchor: 'middle',
      maxWidth: box.w,
    }),
  );
  const caption = chart.categories[index] || series.name;
  if (box.h > size + 24) {
    push(
      nodes,
      text(cx, cy + size * 0.35 + 18, caption, 11, theme.widget.text.secondary, {
        anchor: 'middle',
        maxWidth: box.w,
      }),
    );
  }
}

function table(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const rowHeight = 20;
  const colWidth = box.w / chart.columns.length;
  const color = theme.widget.text.color;
  const rule = mix(theme.widget.background, theme.widget.text.secondary, 0.18);
  nodes.push({
    kind: 'rect',
    x: box.x,
    y: box.y,
    w: box.w,
    h: rowHeight,
    r: 0,
    fill: mix(theme.widget.background, theme.widget.text.secondary, 0.08),
  });
  chart.columns.forEach((c, i) => {
    push(
      nodes,
      text(box.x + colWidth * i + 6, box.y + 14, c, 11, color, { bold: true, maxWidth: colWidth - 10 }),
    );
  });
  const fit = Math.max(0, Math.floor(box.h / rowHeight) - 1);
  const more = chart.rows.length > fit;
  const shown = more ? Math.max(0, fit - 1) : chart.rows.length;
  chart.rows.slice(0, shown).forEach((row, r) => {
    const y = box.y + rowHeight * (r + 1);
    nodes.push({
      kind: 'path',
      d: `M${r2(box.x)} ${r2(y)}H${r2(box.x + box.w)}`,
      stroke: rule,
      strokeWidth: 1,
    });
    row.forEach((cell, i) => {
      push(nodes, text(box.x + colWidth * i + 6, y + 14, cell, 11, color, { maxWidth: colWidth - 10 }));
    });
  });
  if (more && fit > 0) {
    const hidden = chart.rows.length - shown;
    push(
      nodes,
      text(
        box.x + 6,
        box.y + rowHeight * (shown + 1) + 14,
        `+${hidden} more rows`,
        11,
        theme.widget.text.secondary,
      ),
    );
  }
}

/** A chart drawn into `box` (pixels). Used by the PNG/PDF scene and the viewer's inline SVG. */
export function chartNodes(chart: ChartSpec, box: Rect, theme: ResolvedTheme): SceneNode[] {
  const nodes: SceneNode[] = [];
  if (box.w < 30 || box.h < 20) return nodes;
  if (chart.type === 'pie' || chart.type === 'donut') pie(nodes, chart, box, theme);
  else if (chart.type === 'kpi') kpi(nodes, chart, box, theme);
  else if (chart.type === 'table') table(nodes, chart, box, theme);
  else cartesian(nodes, chart, box, theme);
  return nodes;
}

// ---- Widgets ----

function controlBody(nodes: SceneNode[], widget: LaidOutWidget, box: Rect, theme: ResolvedTheme) {
  if (widget.content.kind !== 'control') return;
  const h = Math.min(32, box.h);
  if (h < 14) return;
  const border = theme.control.border;
  nodes.push({
    kind: 'rect',
    x: box.x,
    y: box.y,
    w: box.w,
    h,
    r: Math.min(6, border.radius),
    fill: mix(theme.control.background, WHITE, 0.5),
    stroke: border.color,
    strokeWidth: 1,
  });
  const chevronX = box.x + box.w - 16;
  const mid = box.y + h / 2;
  nodes.push({
    kind: 'path',
    d: `M${r2(chevronX - 4)} ${r2(mid - 2)}L${r2(chevronX)} ${r2(mid + 2)}L${r2(chevronX + 4)} ${r2(mid - 2)}`,
    stroke: theme.widget.text.secondary,
    strokeWidth: 1.5,
  });
  push(
    nodes,
    text(box.x + 10, mid + 4.5, widget.content.value, 13, theme.widget.text.color, { maxWidth: box.w - 36 }),
  );
}

function frameBody(nodes: SceneNode[], widget: LaidOutWidget, box: Rect, theme: ResolvedTheme) {
  if (widget.content.kind !== 'frame') return;
  let top = box.y;
  if (widget.content.tabs.length > 0) {
    let x = box.x;
    widget.content.tabs.forEach((tab, i) => {
      const label = fitText(drawableText(tab), 12, i === 0, 140);
      const w = measure(label, 12, i === 0);
      if (!label || x + w > box.x + box.w) return;
      push(
        nodes,
        text(x, top + 13, label, 12, i === 0 ? theme.primary : theme.widget.text.secondary, {
          bold: i === 0,
        }),
      );
      if (i === 0) nodes.push({ kind: 'rect', x, y: top + 18, w, h: 2, r: 0, fill: theme.primary });
      x += w + 18;
    });
    nodes.push({
      kind: 'path',
      d: `M${r2(box.x)} ${r2(top + 20)}H${r2(box.x + box.w)}`,
      stroke: theme.widget.border.color,
      strokeWidth: 1,
    });
    top += 26;
  }
  if (widget.content.caption && box.y + box.h - top > 14) {
    push(
      nodes,
      text(
        box.x + box.w / 2,
        top + (box.y + box.h - top) / 2 + 4,
        widget.content.caption,
        12,
        theme.widget.text.secondary,
        {
          anchor: 'middle',
          maxWidth: box.w,
        },
      ),
    );
  }
}

/** A widget's boxes: inside its padding, and below its title (where content is drawn). */
export function widgetBoxes(
  widget: LaidOutWidget,
  theme: ResolvedTheme,
): { inner: Rect; body: Rect; titled: boolean } {
  const look = widget.content.kind === 'control' ? theme.control : theme.widget;
  const { x, y, w, h } = widget.rect;
  const pad = Math.min(look.padding, w / 4, h / 4);
  const inner = { x: x + pad, y: y + pad, w: w - pad * 2, h: h - pad * 2 };
  const titled = Boolean(widget.title) && inner.h >= look.title.fontSize;
  const top = titled ? inner.y + look.title.fontSize * 1.3 + 6 : inner.y;
  return { inner, body: { x: inner.x, y: top, w: inner.w, h: inner.y + inner.h - top }, titled };
}

function widgetBlock(widget: LaidOutWidget, theme: ResolvedTheme): SceneBlock {
  const nodes: SceneNode[] = [];
  const isControl = widget.content.kind === 'control';
  const look = isControl ? theme.control : theme.widget;
  const { x, y, w, h } = widget.rect;
  const border = look.border;
  const bordered = border.style !== 'none' && border.width > 0;
  nodes.push({
    kind: 'rect',
    x,
    y,
    w,
    h,
    r: Math.min(border.radius, w / 2, h / 2),
    fill: look.background,
    ...(bordered
      ? { stroke: border.color, strokeWidth: border.width, dash: dashFor(border.style, border.width) }
      : {}),
  });
  const { inner, body, titled } = widgetBoxes(widget, theme);
  const titleStyle = look.title;
  if (titled && widget.title) {
    push(
      nodes,
      text(
        inner.x,
        inner.y + titleStyle.fontSize * 0.85,
        widget.title,
        titleStyle.fontSize,
        titleStyle.color,
        {
          bold: isBold(titleStyle),
          maxWidth: inner.w,
        },
      ),
    );
  }
  const content = widget.content;
  if (body.h > 0) {
    if (content.kind === 'text') {
      const lines = wrapText(drawableText(content.text), 13, false, body.w, Math.floor(body.h / 18));
      lines.forEach((line, i) => {
        push(nodes, text(body.x, body.y + 13 + i * 18, line, 13, theme.widget.text.color));
      });
    } else if (content.kind === 'control') controlBody(nodes, widget, body, theme);
    else if (content.kind === 'chart') nodes.push(...chartNodes(content.chart, body, theme));
    else frameBody(nodes, widget, body, theme);
  }
  return { top: y, bottom: y + h, nodes };
}

/** The layout as a display list: the header, then one block per widget in reading order. */
export function buildScene(layout: DashboardLayout): Scene {
  const theme = layout.theme;
  const blocks: SceneBlock[] = [];
  const padX = Math.max(layout.grid.padding[0], 12);
  if (layout.header) {
    const nodes: SceneNode[] = [];
    const maxWidth = layout.width - padX * 2;
    push(
      nodes,
      text(
        padX,
        16 + HEADER_TITLE_SIZE * 0.85,
        layout.header.title,
        HEADER_TITLE_SIZE,
        theme.widget.title.color,
        { bold: true, maxWidth },
      ),
    );
    if (layout.header.description) {
      push(
        nodes,
        text(
          padX,
          16 + HEADER_TITLE_SIZE + 8 + HEADER_DESCRIPTION_SIZE * 0.85,
          layout.header.description.replace(/\s+/g, ' '),
          HEADER_DESCRIPTION_SIZE,
          theme.widget.text.secondary,
          { maxWidth },
        ),
      );
    }
    blocks.push({ top: 0, bottom: layout.header.height, nodes });
  }
  if (layout.widgets.length === 0) {
    const top = layout.header?.height ?? 0;
    const nodes: SceneNode[] = [];
    push(
      nodes,
      text(layout.width / 2, top + 64, 'This dashboard has no widgets yet', 14, theme.widget.text.secondary, {
        anchor: 'middle',
      }),
    );
    blocks.push({ top, bottom: layout.height, nodes });
  }
  const ordered = [...layout.widgets].sort((a, b) => a.rect.y - b.rect.y || a.rect.x - b.rect.x);
  for (const widget of ordered) blocks.push(widgetBlock(widget, theme));
  return { width: layout.width, height: layout.height, background: theme.background, blocks };
}
