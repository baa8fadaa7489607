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

const AXIS_SIZE = 10;
/** Space between two level labels, and the pitch below which turned labels would overlap. */
const LABEL_GAP = 5;
const TURNED_PITCH = 14;
const SIN45 = Math.SQRT1_2;
/** How much wider than Helvetica's metrics a browser's sans-serif may draw a label. */
const FONT_SLACK = 1.2;

/**
 * How the category axis is labelled: `level` labels side by side when the widest fits its slot;
 * else a bar chart's labels are turned 45° (each category keeps its label, cut only to the
 * height the axis may take), while a line or area chart, whose points run in order, labels every
 * `every`-th point level. Turned labels are thinned only when even they would overlap.
 */
interface CategoryAxis {
  turned: boolean;
  every: number;
  /** Longest label (along its baseline). */
  length: number;
  /** Height the labels take below the plot. */
  height: number;
}

function categoryAxis(chart: ChartSpec, slot: number, narrow: boolean, height: number): CategoryAxis {
  const widths = chart.categories.map((c) => measure(drawableText(c), AXIS_SIZE));
  const widest = Math.max(0, ...widths);
  const cap = narrow ? 56 : 90;
  if (widest + LABEL_GAP <= slot) return { turned: false, every: 1, length: widest, height: 18 };
  // A slot wider than a short label leaves every label readable level, cut to the slot.
  if (slot - LABEL_GAP >= cap) return { turned: false, every: 1, length: slot - LABEL_GAP, height: 18 };
  if (chart.type !== 'bar') {
    const length = Math.min(widest, cap);
    return { turned: false, every: Math.max(1, Math.ceil((length + LABEL_GAP) / slot)), length, height: 18 };
  }
  // At most a third of the chart's height goes to the labels; past that they are cut. The
  // viewer's font may run up to a fifth wider than the metrics measured here: room for it.
  const room = Math.max(24, height / 3);
  const length = Math.min(widest, narrow ? 80 : 110, (room - 14) / (SIN45 * FONT_SLACK));
  return {
    turned: true,
    every: Math.max(1, Math.ceil(TURNED_PITCH / slot)),
    length,
    height: Math.ceil(length * SIN45 * FONT_SLACK + 14),
  };
}

/**
 * The category labels under the plot. Level labels are centred under their point but kept inside
 * the chart's box (the last month of a line is not cut at the edge): one pushed in that would
 * touch its neighbour makes the neighbour give way. Turned labels end at their point.
 */
function categoryLabels(
  nodes: SceneNode[],
  chart: ChartSpec,
  axis: CategoryAxis,
  plot: { x: number; w: number; bottom: number; slot: number },
  box: Rect,
  color: Rgba,
) {
  const shown = chart.categories.map((c, i) => ({ c, i })).filter(({ i }) => i % axis.every === 0);
  if (axis.turned) {
    for (const { c, i } of shown) {
      const x = plot.x + plot.slot * (i + 0.5) + AXIS_SIZE * 0.35;
      const y = plot.bottom + 8;
      // The first labels must not run out of the box on the left.
      const maxWidth = Math.min(axis.length, (x - box.x) / (SIN45 * FONT_SLACK));
      push(nodes, text(x, y, c, AXIS_SIZE, color, { anchor: 'end', rotate: -45, maxWidth }));
    }
    return;
  }
  const maxWidth = Math.min(Math.max(plot.slot * axis.every - 4, 12), axis.length);
  const placed: { node: SceneNode; left: number; right: number }[] = [];
  const left = box.x;
  const right = box.x + box.w;
  for (const { c, i } of shown) {
    const node = text(plot.x + plot.slot * (i + 0.5), plot.bottom + 13, c, AXIS_SIZE, color, { maxWidth });
    if (node?.kind !== 'text') continue;
    const width = measure(node.text, AXIS_SIZE);
    const centre = node.x;
    let from = centre - width / 2;
    // A label pushed in is anchored at the edge it meets, so it ends there in any font.
    let label: SceneNode = { ...node, anchor: 'middle' };
    if (from + width > right) {
      from = right - width;
      label = { ...node, x: r2(right), anchor: 'end' };
    }
    if (from < left) {
      from = left;
      label = { ...node, x: r2(left), anchor: 'start' };
    }
    const last = placed[placed.length - 1];
    if (last && from < last.right + 4) {
      // Two labels would touch: the last category's label wins over its neighbour, else the earlier stays.
      if (i !== chart.categories.length - 1) continue;
      placed.pop();
    }
    placed.push({ node: label, left: from, right: from + width });
  }
  for (const p of placed) nodes.push(p.node);
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
  const plotWidth = box.w - axisWidth;
  const n = chart.categories.length;
  const slot = plotWidth / n;
  const axis = categoryAxis(chart, slot, narrow, bottom - top);
  const plot = { x: box.x + axisWidth, y: top + 4, w: plotWidth, h: bottom - top - 4 - axis.height };
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
  categoryLabels(nodes, chart, axis, { x: plot.x, w: plot.w, bottom: plot.y + plot.h, slot }, box, secondary);
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

function kpi(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme, title: string | null) {
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
  // The caption says what the title does not: the row's category, or, untitled, the measure.
  const caption = chart.categories[index] || (title ? '' : series.name);
  const repeats = !!title && caption.trim().toLowerCase() === title.trim().toLowerCase();
  if (caption && !repeats && box.h > size + 24) {
    push(
      nodes,
      text(cx, cy + size * 0.35 + 18, caption, 11, theme.widget.text.secondary, {
        anchor: 'middle',
        maxWidth: box.w,
      }),
    );
  }
}

const TABLE_SIZE = 11;
const CELL_PAD = 6;
const MIN_TEXT_COLUMN = 48;

/**
 * The widths of the columns a table shows in `width`: each as wide as its widest cell, numbers
 * never cut; the space left over is shared out, so the table spans its box. When the cells do not
 * fit, text columns give way (down to MIN_TEXT_COLUMN, cut with an ellipsis, the full text a
 * tooltip), then the last columns are left out.
 */
export function tableColumns(chart: ChartSpec, width: number): number[] {
  const natural = chart.columns.map((c, i) => {
    const cells = chart.rows.slice(0, 200).map((r) => measure(drawableText(r[i] ?? ''), TABLE_SIZE));
    return Math.ceil(Math.max(measure(drawableText(c), TABLE_SIZE, true), ...cells)) + CELL_PAD * 2;
  });
  const numeric = (i: number) => chart.numeric?.[i] === true;
  for (let count = chart.columns.length; count >= 1; count--) {
    const widths = natural.slice(0, count);
    const total = widths.reduce((a, b) => a + b, 0);
    if (total <= width) {
      // Spare room goes to the text columns (all columns when there are none).
      const takers = widths.map((_, i) => i).filter((i) => !numeric(i));
      const share = takers.length > 0 ? takers : widths.map((_, i) => i);
      const extra = (width - total) / share.length;
      return widths.map((w, i) => (share.includes(i) ? w + extra : w));
    }
    const fixed = widths.reduce((a, w, i) => a + (numeric(i) ? w : 0), 0);
    const texts = widths.map((_, i) => i).filter((i) => !numeric(i));
    const room = width - fixed;
    if (texts.length > 0 && room >= texts.length * MIN_TEXT_COLUMN) {
      const wanted = texts.reduce((a, i) => a + (widths[i] as number), 0);
      return widths.map((w, i) => (numeric(i) ? w : (w / wanted) * room));
    }
    if (count === 1) return [width];
  }
  return [width];
}

function table(nodes: SceneNode[], chart: ChartSpec, box: Rect, theme: ResolvedTheme) {
  const widths = tableColumns(chart, box.w);
  const color = theme.widget.text.color;
  const rule = mix(theme.widget.background, theme.widget.text.secondary, 0.18);
  // Rows grow (up to 28 px) to fill the box when there are few of them.
  const rowHeight = Math.max(20, Math.min(28, Math.floor(box.h / (chart.rows.length + 1))));
  const baseline = Math.round(rowHeight / 2 + 4);
  nodes.push({
    kind: 'rect',
    x: box.x,
    y: box.y,
    w: box.w,
    h: rowHeight,
    r: 0,
    fill: mix(theme.widget.background, theme.widget.text.secondary, 0.08),
  });
  const lefts = widths.map((_, i) => box.x + widths.slice(0, i).reduce((a, b) => a + b, 0));
  const cell = (i: number, y: number, value: string, bold: boolean) => {
    const w = widths[i] as number;
    const right = chart.numeric?.[i] === true;
    const x = right ? (lefts[i] as number) + w - CELL_PAD : (lefts[i] as number) + CELL_PAD;
    return text(x, y, value, TABLE_SIZE, color, {
      bold,
      anchor: right ? 'end' : 'start',
      maxWidth: w - CELL_PAD * 2,
    });
  };
  widths.forEach((_, i) => {
    push(nodes, cell(i, box.y + baseline, chart.columns[i] ?? '', true));
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
    widths.forEach((_, i) => {
      push(nodes, cell(i, y + baseline, row[i] ?? '', false));
    });
  });
  if (more && fit > 0) {
    const hidden = chart.rows.length - shown;
    push(
      nodes,
      text(
        box.x + CELL_PAD,
        box.y + rowHeight * (shown + 1) + baseline,
        `+${hidden} more rows`,
        TABLE_SIZE,
        theme.widget.text.secondary,
      ),
    );
  }
}

/** A chart drawn into `box` (pixels). Used by the PNG/PDF scene and the viewer's inline SVG. */
export function chartNodes(
  chart: ChartSpec,
  box: Rect,
  theme: ResolvedTheme,
  options: { title?: string | null } = {},
): SceneNode[] {
  const nodes: SceneNode[] = [];
  if (box.w < 30 || box.h < 20) return nodes;
  if (chart.type === 'pie' || chart.type === 'donut') pie(nodes, chart, box, theme);
  else if (chart.type === 'kpi') kpi(nodes, chart, box, theme, options.title ?? null);
  else if (chart.type === 'table') table(nodes, chart, box, theme);
  else cartesian(nodes, chart, box, theme);
  return nodes;
}
