import { mix, type Rgba, withAlpha } from './color';
import { type ColumnFormat, formatValue } from './column-format';
import type { ChartSpec, Rect, ResolvedTheme } from './render.types';
import { push, r2, type SceneNode, text } from './scene-nodes';
import { drawableText, fitText, formatNumber, measure } from './text';

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

type Series = ChartSpec['series'][number];

/** A value as a tooltip, KPI or label shows it: the series' column format, else the default. */
function valueText(value: number, series: Series | undefined, unit: string | null): string {
  return series?.format ? formatValue(value, series.format) : formatNumber(value, 'full', unit);
}

/** The column format every series shares (the axis can then be written in it), else null. */
function sharedFormat(chart: ChartSpec): ColumnFormat | null {
  const first = chart.series[0]?.format ?? null;
  if (!first) return null;
  const same = chart.series.every((s) => JSON.stringify(s.format) === JSON.stringify(first));
  return same ? first : null;
}

/** Below this width a chart is laid out for a phone: fewer ticks, shorter labels, legend below. */
export const NARROW_CHART_WIDTH = 340;
const LEGEND_SIZE = 11;
const LEGEND_ROW = 16;

/**
 * Legend entries placed left to right, wrapping onto at most `maxRows` rows of `width`; the
 * entries that do not fit are left out. Returns the rows used.
 */
function legend(
  nodes: SceneNode[],
  names: string[],
  colors: Rgba[],
  box: { x: number; y: number; w: number },
  theme: ResolvedTheme,
  maxRows = 1,
): number {
  const maxLabel = Math.min(140, Math.max(box.w - 14, 20));
  let x = box.x;
  let row = 0;
  for (const [i, name] of names.entries()) {
    const label = fitText(drawableText(name), LEGEND_SIZE, false, maxLabel);
    const width = measure(label, LEGEND_SIZE);
    if (x > box.x && x + 13 + width > box.x + box.w) {
      if (row + 1 >= maxRows) break;
      row += 1;
      x = box.x;
    }
    const y = box.y + row * LEGEND_ROW;
    nodes.push({ kind: 'rect', x, y: y + 2, w: 9, h: 9, r: 2, fill: colors[i % colors.length] as Rgba });
    push(nodes, text(x + 13, y + 10, label, LEGEND_SIZE, theme.widget.text.secondary));
    x += 13 + width + 14;
  }
  return names.length > 0 ? row + 1 : 0;
}

/** How many legend rows `names` need in `width` (at most `maxRows`). */
function legendRowsNeeded(names: string[], width: number, maxRows: number): number {
  const maxLabel = Math.min(140, Math.max(width - 14, 20));
  let x = 0;
  let rows = names.length > 0 ? 1 : 0;
  for (const name of names) {
    const w = 13 + measure(fitText(drawableText(name), LEGEND_SIZE, false, maxLabel), LEGEND_SIZE);
    if (x > 0 && x + w > width) {
      if (rows >= maxRows) break;
      rows += 1;
      x = 0;
    }
    x += w + 14;
  }
  return rows;
}

function cartesian(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const colors = theme.palette;
  const secondary = theme.widget.text.secondary;
  const narrow = box.w < NARROW_CHART_WIDTH;
  const names = chart.series.length > 1 ? chart.series.map((s) => s.name) : [];
  let top = box.y;
  let bottom = box.y + box.h;
  // A phone has no width to spare beside the plot: the legend goes below it, on up to two rows.
  if (names.length > 0 && narrow) {
    const rows = legendRowsNeeded(names, box.w, 2);
    bottom -= rows * LEGEND_ROW + 2;
    legend(nodes, names, colors, { x: box.x, y: bottom + 2, w: box.w }, theme, rows);
  } else if (names.length > 0) {
    top += legend(nodes, names, colors, box, theme) * LEGEND_ROW + 2;
  }
  const values = chart.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const tickCount = narrow || bottom - top < 140 ? 3 : 4;
  const ticks = niceTicks(Math.min(...values), Math.max(...values), tickCount);
  const lo = ticks[0] as number;
  const hi = ticks[ticks.length - 1] as number;
  if (ticks.length < 2 || !(hi > lo)) return;
  const axisFormat = sharedFormat(chart);
  const labels = ticks.map((t) =>
    axisFormat ? formatValue(t, axisFormat, { compact: true }) : formatNumber(t, 'compact', chart.unit),
  );
  const axisWidth = Math.max(...labels.map((l) => measure(l, 10))) + 8;
  const plot = { x: box.x + axisWidth, y: top + 4, w: box.w - axisWidth, h: bottom - top - 4 - 18 };
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
  // Category labels: as many as fit side by side, evenly spread; shorter (cut) on a phone.
  const labelCap = narrow ? 56 : 90;
  const widest = Math.max(...chart.categories.map((c) => Math.min(measure(drawableText(c), 10), labelCap)));
  const every = Math.max(1, Math.ceil((widest + 8) / slot));
  chart.categories.forEach((c, i) => {
    if (i % every !== 0) return;
    push(
      nodes,
      text(plot.x + slot * (i + 0.5), plot.y + plot.h + 13, c, 10, secondary, {
        anchor: 'middle',
        maxWidth: Math.min(Math.max(slot * every - 4, 12), labelCap),
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
          tooltip: pointTooltip(chart, s, i, v),
        });
      });
    });
    return;
  }
  chart.series.forEach((s, si) => {
    const color = colors[si % colors.length] as Rgba;
    const runs: [number, number][][] = [];
    let run: [number, number][] = [];
    const tips: string[] = [];
    s.values.forEach((v, i) => {
      if (v === null) {
        if (run.length) runs.push(run);
        run = [];
        return;
      }
      run.push([r2(plot.x + slot * (i + 0.5)), r2(yOf(v))]);
      tips.push(pointTooltip(chart, s, i, v));
    });
    let point = 0;
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
        for (const [x, y] of points) {
          nodes.push({ kind: 'path', d: circlePath(x, y, 2.5), fill: color, tooltip: tips[point] });
          point += 1;
        }
      } else point += points.length;
    }
  });
}

function pointTooltip(chart: ChartSpec, series: Series, index: number, value: number): string {
  const category = chart.categories[index] ?? '';
  const name = chart.series.length > 1 ? ` · ${series.name}` : '';
  return `${category}${name}: ${valueText(value, series, chart.unit)}`;
}

function circlePath(cx: number, cy: number, r: number): string {
  return `M${r2(cx - r)} ${r2(cy)}A${r} ${r} 0 1 0 ${r2(cx + r)} ${r2(cy)}A${r} ${r} 0 1 0 ${r2(cx - r)} ${r2(cy)}Z`;
}

function pie(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const values = (chart.series[0]?.values ?? []).map((v) => (v !== null && v > 0 ? v : 0));
  const total = values.reduce((a, b) => a + b, 0);
  const colors = theme.palette;
  // Beside the pie on a wide box; below it on a phone (when there is height for it); else none.
  const below = box.w < NARROW_CHART_WIDTH && box.h >= 140;
  const legendWidth = !below && box.w > 260 ? Math.min(160, box.w * 0.4) : 0;
  const legendRows = below
    ? legendRowsNeeded(chart.categories, box.w, Math.floor((box.h * 0.4) / LEGEND_ROW))
    : 0;
  const pieHeight = box.h - (legendRows > 0 ? legendRows * LEGEND_ROW + 6 : 0);
  const radius = Math.min((box.w - legendWidth) / 2, pieHeight / 2) - 2;
  if (radius < 8) return;
  const cx = box.x + (box.w - legendWidth) / 2;
  const cy = box.y + pieHeight / 2;
  if (legendRows > 0) {
    legend(
      nodes,
      chart.categories,
      colors,
      { x: box.x, y: box.y + pieHeight + 6, w: box.w },
      theme,
      legendRows,
    );
  }
  if (total <= 0) {
    nodes.push({
      kind: 'path',
      d: circlePath(cx, cy, radius),
      stroke: theme.widget.border.color,
      strokeWidth: 1,
    });
  }
  let angle = -Math.PI / 2;
  const series = chart.series[0];
  values.forEach((v, i) => {
    if (v <= 0) return;
    const fill = colors[i % colors.length] as Rgba;
    const sweep = (v / total) * Math.PI * 2;
    const share = Math.round((v / total) * 1000) / 10;
    const tooltip = `${chart.categories[i] ?? ''}: ${valueText(v, series, chart.unit)} (${share}%)`;
    if (sweep >= Math.PI * 2 - 1e-6) {
      nodes.push({ kind: 'path', d: circlePath(cx, cy, radius), fill, tooltip });
    } else {
      const [x1, y1] = [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
      const [x2, y2] = [cx + radius * Math.cos(angle + sweep), cy + radius * Math.sin(angle + sweep)];
      nodes.push({
        kind: 'path',
        d: `M${r2(cx)} ${r2(cy)}L${r2(x1)} ${r2(y1)}A${r2(radius)} ${r2(radius)} 0 ${sweep > Math.PI ? 1 : 0} 1 ${r2(x2)} ${r2(y2)}Z`,
        fill,
        stroke: theme.widget.background,
        strokeWidth: 1,
        tooltip,
      });
    }
    angle += sweep;
  });
  const centerSize = Math.min(16, radius * 0.4);
  if (chart.type === 'donut') {
    nodes.push({ kind: 'path', d: circlePath(cx, cy, radius * 0.58), fill: theme.widget.background });
  }
  // Text below 10 px is not legible: a small donut shows no total.
  if (chart.type === 'donut' && centerSize >= 10) {
    push(
      nodes,
      text(cx, cy + 5, formatNumber(total, 'compact', chart.unit), centerSize, theme.widget.text.color, {
        bold: true,
        anchor: 'middle',
        maxWidth: radius,
      }),
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
  const value = valueText(series.values[index] as number, series, chart.unit);
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
  // Columns narrower than this show only an ellipsis: a phone shows the first columns that fit.
  const shownColumns = Math.max(1, Math.min(chart.columns.length, Math.floor(box.w / 60)));
  const colWidth = box.w / shownColumns;
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
  chart.columns.slice(0, shownColumns).forEach((c, i) => {
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
    row.slice(0, shownColumns).forEach((cell, i) => {
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
