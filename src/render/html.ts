import { escapeMarkup } from '../core/text';
import { chartNodes } from './charts';
import { mix, type Rgba, toCss } from './color';
import { breakpointDrawWidths, gridPositions, gridSpec, maxRows, sortedBreakpoints } from './grid';
import { computeLayout } from './layout';
import type {
  Border,
  Breakpoint,
  LaidOutWidget,
  RenderInput,
  ResolvedTheme,
  TitleStyle,
} from './render.types';
import { widgetBoxes } from './scene';
import { nodesToSvg } from './svg';
import { DEFAULT_FONT_STACK, safeFontList } from './theme';
import { type WidgetContents, widgetContents } from './widget-content';

// Every theme value is filtered again where it is written (defence in depth): a value that did
// not come through resolveTheme, or a stored one older than the write-time grammar, still
// cannot leave its declaration.
const px = (n: number) => `${Number.isFinite(n) ? Math.round(n * 100) / 100 : 0}px`;
const font = (family: string) => safeFontList(family) ?? DEFAULT_FONT_STACK;
const weight = (w: number) => (Number.isFinite(w) ? Math.min(1000, Math.max(100, Math.round(w))) : 400);
const BORDER_STYLES = new Set(['solid', 'dashed', 'dotted']);
const borderCss = (b: Border) =>
  !BORDER_STYLES.has(b.style) || b.width === 0 ? 'none' : `${px(b.width)} ${b.style} ${toCss(b.color)}`;
const titleCss = (t: TitleStyle) =>
  `color:${toCss(t.color)};font-family:${font(t.fontFamily)};font-size:${px(t.fontSize)};font-weight:${weight(t.fontWeight)}`;

/** Up to two initials from a display name, for viewers the embedding gave none. */
export function initialsFrom(name: string | null | undefined): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words.slice(0, 1);
  return (
    letters
      .map((w) => Array.from(w as string)[0] ?? '')
      .join('')
      .toUpperCase() || '?'
  );
}

function themeCss(theme: ResolvedTheme): string {
  const w = theme.widget;
  const c = theme.control;
  const bg = (color: Rgba) => toCss(color);
  return [
    `body{background:${bg(theme.background)};font-family:${font(theme.fontFamily)};color:${toCss(w.text.color)}}`,
    `.eb-title{${titleCss({ ...w.title, fontSize: 20, fontWeight: 700 })}}`,
    `.eb-description,.eb-viewer-name{color:${toCss(w.text.secondary)}}`,
    `.eb-widget{background:${bg(w.background)};border:${borderCss(w.border)};border-radius:${px(w.border.radius)};padding:${px(w.padding)}}`,
    `.eb-widget-title{${titleCss(w.title)}}`,
    `.eb-widget--control{background:${bg(c.background)};border:${borderCss(c.border)};border-radius:${px(c.border.radius)};padding:${px(c.padding)}}`,
    `.eb-widget--control .eb-widget-title{${titleCss(c.title)}}`,
    `.eb-text{color:${toCss(w.text.color)};font-family:${font(w.text.fontFamily)}}`,
    `.eb-caption,.eb-field-label{color:${toCss(w.text.secondary)}}`,
    `.eb-divider{border-color:${toCss(w.border.color)};border-width:${px(Math.max(1, w.border.width))}}`,
    `.eb-control-value{border-color:${toCss(c.border.color)};color:${toCss(w.text.color)}}`,
    `.eb-tab--active{color:${toCss(theme.primary)};border-color:${toCss(theme.primary)}}`,
    `.eb-chat{background:${toCss(theme.primary)}}`,
    `.eb-avatar{background:${toCss(theme.primary)}}`,
    `.eb-table{color:${toCss(w.text.color)}}`,
    `.eb-table th{background:${toCss(mix(w.background, w.text.secondary, 0.08))}}`,
    `.eb-table td,.eb-table th{border-color:${toCss(mix(w.background, w.text.secondary, 0.18))}}`,
  ].join('\n');
}

/**
 * The grid for every breakpoint as CSS: the narrowest breakpoint unconditionally, each wider one
 * under `min-width: <breakpoint + 1>px` (react-grid-layout switches when the width exceeds the
 * value). The iframe's own width picks the layout; no script is needed for it.
 */
function gridCss(input: RenderInput): string {
  const grid = gridSpec(input);
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const limit = maxRows(grid);
  const ascending = sortedBreakpoints(grid).reverse();
  const blocks = ascending.map((bp: Breakpoint, i) => {
    const positions = gridPositions(widgets, bp, grid);
    const rules = [
      `.eb-grid{grid-template-columns:repeat(${grid.cols[bp]},minmax(0,1fr))}`,
      `.eb-grid .eb-chart{display:none}.eb-grid .eb-chart--${bp}{display:block}`,
      ...positions.map((p, index) =>
        !p || p.y >= limit
          ? `#eb-w${index}{display:none}`
          : `#eb-w${index}{display:flex;grid-column:${p.x + 1}/span ${p.w};grid-row:${p.y + 1}/span ${Math.min(p.h, limit - p.y)}}`,
      ),
    ].join('');
    return i === 0 ? rules : `@media (min-width:${grid.breakpoints[bp] + 1}px){${rules}}`;
  });
  const base = `.eb-grid{display:grid;grid-auto-rows:${px(grid.rowHeight)};gap:${px(grid.margin[1])} ${px(grid.margin[0])};padding:${px(grid.padding[1])} ${px(grid.padding[0])}}`;
  return [base, ...blocks].join('\n');
}

/** A chart's drawings, one per distinct box it gets across the breakpoints. */
type ChartDrawings = { breakpoints: Breakpoint[]; w: number; h: number; svg: string }[];

/**
 * Each chart drawn for the box it gets at each breakpoint (its layout at that breakpoint's draw
 * width), so a phone gets a chart laid out for a phone instead of a shrunken desktop one.
 * Breakpoints whose boxes are the same share one drawing.
 */
function chartDrawings(
  input: RenderInput,
  contents: WidgetContents,
  theme: ResolvedTheme,
): Map<number, ChartDrawings> {
  const grid = gridSpec(input);
  const widths = breakpointDrawWidths(grid);
  const drawings = new Map<number, ChartDrawings>();
  const fontFamily = font(theme.widget.text.fontFamily);
  const unmatched: Breakpoint[] = [];
  for (const bp of sortedBreakpoints(grid)) {
    const layout = computeLayout(input, { width: widths[bp], contents });
    if (layout.breakpoint !== bp) {
      unmatched.push(bp);
      continue;
    }
    for (const widget of layout.widgets) {
      // A table is markup (tableHtml), the same at every width.
      if (widget.content.kind !== 'chart' || widget.content.chart.type === 'table') continue;
      const { body } = widgetBoxes(widget, theme);
      const w = Math.max(40, Math.round(body.w));
      const h = Math.max(30, Math.round(body.h));
      const list = drawings.get(widget.index) ?? [];
      const same = list.find((d) => d.w === w && d.h === h);
      if (same) {
        same.breakpoints.push(bp);
      } else {
        const nodes = chartNodes(widget.content.chart, { x: 0, y: 0, w, h }, theme, { title: widget.title });
        list.push({ breakpoints: [bp], w, h, svg: nodesToSvg(nodes, fontFamily, { tooltips: true }) });
      }
      drawings.set(widget.index, list);
    }
  }
  // Breakpoints too narrow to lay out (custom values below the smallest render width) show the
  // nearest drawing rather than none.
  for (const list of drawings.values()) list[list.length - 1]?.breakpoints.push(...unmatched);
  return drawings;
}

/**
 * A table chart as an HTML table: it spans its card at any width, its rows share the card's
 * height, a long cell wraps instead of being cut (a phone reads every product name), and numbers
 * line up on the right. The cells are the texts the PNG and PDF draw. More rows than the card
 * holds scroll inside it.
 */
function tableHtml(widget: LaidOutWidget): string {
  if (widget.content.kind !== 'chart') return '';
  const chart = widget.content.chart;
  const align = (i: number) => (chart.numeric?.[i] === true ? ' class="eb-num"' : '');
  const head = chart.columns.map((c, i) => `<th scope="col"${align(i)}>${escapeMarkup(c)}</th>`).join('');
  const body = chart.rows
    .map((row) => `<tr>${row.map((cell, i) => `<td${align(i)}>${escapeMarkup(cell)}</td>`).join('')}</tr>`)
    .join('');
  const label = escapeMarkup(widget.title ?? 'Table');
  return `<div class="eb-table-wrap" tabindex="0" role="region" aria-label="${label}"><table class="eb-table"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function chartSvg(widget: LaidOutWidget, drawings: ChartDrawings | undefined): string {
  if (widget.content.kind === 'chart' && widget.content.chart.type === 'table') return tableHtml(widget);
  if (widget.content.kind !== 'chart' || !drawings) return '';
  const label = escapeMarkup(widget.title ?? 'Chart');
  // The grid's CSS shows the drawing of the breakpoint in effect and hides the others.
  return drawings
    .map((d) => {
      const classes = d.breakpoints.map((bp) => ` eb-chart--${bp}`).join('');
      return `<svg class="eb-chart${classes}" viewBox="0 0 ${d.w} ${d.h}" preserveAspectRatio="xMidYMid meet" role="img" aria-label="${label}">${d.svg}</svg>`;
    })
    .join('');
}

function widgetBody(widget: LaidOutWidget, drawings: ChartDrawings | undefined): string {
  const content = widget.content;
  switch (content.kind) {
    case 'text':
      return `<div class="eb-text">${escapeMarkup(content.text)}</div>`;
    case 'control':
      return `<div class="eb-control" data-control="${content.control}"><div class="eb-control-value" role="status" aria-label="${escapeMarkup(content.label)}"><span>${escapeMarkup(content.value)}</span><span class="eb-chevron" aria-hidden="true"></span></div></div>`;
    case 'chart':
      return chartSvg(widget, drawings);
    case 'field':
      return `<div class="eb-field">${content.label ? `<span class="eb-field-label">${escapeMarkup(content.label)}</span>` : ''}<span class="eb-field-value">${escapeMarkup(content.value)}</span></div>`;
    case 'divider':
      return '<hr class="eb-divider">';
    case 'spacer':
      return '';
    case 'frame': {
      const tabs = content.tabs.length
        ? `<div class="eb-tabs" role="tablist">${content.tabs
            .map(
              (t, i) =>
                `<span class="eb-tab${i === 0 ? ' eb-tab--active' : ''}" role="tab" aria-selected="${i === 0}">${escapeMarkup(t)}</span>`,
            )
            .join('')}</div>`
        : '';
      const detail = content.detail
        ? `<span class="eb-caption-detail">${escapeMarkup(content.detail)}</span>`
        : '';
      const caption = content.caption
        ? `<div class="eb-caption${detail ? ' eb-caption--error' : ''}">${escapeMarkup(content.caption)}${detail}</div>`
        : '';
      return `${tabs}${caption}`;
    }
  }
}

function avatarHtml(input: RenderInput): string {
  const viewer = input.viewer;
  if (!viewer) return '';
  const name = viewer.displayName?.trim() || '';
  const initials = escapeMarkup(viewer.initials?.trim() || initialsFrom(name));
  const picture = viewer.picture && /^https?:\/\//i.test(viewer.picture) ? viewer.picture : null;
  // The initials are always there underneath; a picture that loads covers them, one that fails is
  // removed by the page script (no error is shown: the initials simply remain).
  const img = picture
    ? `<img class="eb-avatar-img" data-eb-avatar src="${escapeMarkup(picture)}" alt="" referrerpolicy="no-referrer" decoding="async">`
    : '';
  return `<div class="eb-viewer" data-eb-viewer><span class="eb-avatar${picture ? '' : ' eb-avatar--initials'}" title="${escapeMarkup(name)}"><span class="eb-initials" aria-hidden="true">${initials}</span>${img}</span>${name ? `<span class="eb-viewer-name">${escapeMarkup(name)}</span>` : ''}</div>`;
}

/** The dashboard's markup and its stylesheet: the page embeds both, renewal swaps both. */
export function dashboardFragment(input: RenderInput): { title: string; html: string; css: string } {
  const contents = widgetContents(input);
  const layout = computeLayout(input, { contents });
  const theme = layout.theme;
  const drawings = chartDrawings(input, contents, theme);
  const laidOut = new Map(layout.widgets.map((w) => [w.index, w]));
  const widgets = contents
    .map((c) => {
      // Widgets without a box at the desktop width still get one for their own breakpoints.
      const widget: LaidOutWidget = laidOut.get(c.index) ?? {
        ...c,
        grid: { x: 0, y: 0, w: 1, h: 1 },
        rect: { x: 0, y: 0, w: 300, h: 150 },
      };
      const kind = widget.content.kind === 'control' ? ' eb-widget--control' : '';
      const title = widget.title ? `<h2 class="eb-widget-title">${escapeMarkup(widget.title)}</h2>` : '';
      return `<section class="eb-widget eb-widget--${widget.content.kind}${kind}" id="eb-w${widget.index}" data-widget-id="${escapeMarkup(widget.id)}" data-widget-type="${escapeMarkup(widget.type)}">${title}<div class="eb-widget-body">${widgetBody(widget, drawings.get(widget.index))}</div></section>`;
    })
    .join('');
  const header = layout.header;
  const title = header?.title || 'Dashboard';
  const heading = `<div class="eb-heading">${header?.title ? `<h1 class="eb-title">${escapeMarkup(header.title)}</h1>` : ''}${header?.description ? `<p class="eb-description">${escapeMarkup(header.description)}</p>` : ''}</div>`;
  // The chat button has its own place in the header's toolbar: floating over the grid, it would
  // cover a widget's corner. Only an explicit true shows it.
  const chat =
    input.settings?.showDashboardChat === true
      ? `<button class="eb-chat" type="button" data-eb-chat>Ask about this dashboard</button>`
      : '';
  const avatar = avatarHtml(input);
  const toolbar = chat || avatar ? `<div class="eb-toolbar">${chat}${avatar}</div>` : '';
  const empty = widgets ? '' : '<p class="eb-empty">This dashboard has no widgets yet.</p>';
  const html = `<header class="eb-header">${heading}${toolbar}</header><main class="eb-grid">${widgets}</main>${empty}`;
  return { title, html, css: `${themeCss(theme)}\n${gridCss(input)}` };
}

/** The stylesheet of the dashboard markup's classes (and of a notice shown instead of it). */
export const DASHBOARD_BASE_CSS = `*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;padding:0}
body{min-height:100vh;-webkit-font-smoothing:antialiased}
[hidden]{display:none!important}
.eb-header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px 16px;padding:16px 16px 0}
.eb-heading{min-width:0;flex:1 1 200px}
.eb-toolbar{display:flex;align-items:center;gap:12px;flex:none;margin-left:auto}
.eb-title{margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.eb-description{margin:4px 0 0;font-size:13px}
.eb-viewer{display:flex;align-items:center;gap:8px;flex:none}
.eb-viewer-name{font-size:13px}
.eb-avatar{position:relative;width:32px;height:32px;border-radius:50%;overflow:hidden;display:inline-flex;align-items:center;justify-content:center;color:#fff;font-size:13px;font-weight:600;flex:none}
.eb-avatar-img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover;background:inherit}
.eb-widget{flex-direction:column;min-width:0;min-height:0;overflow:hidden}
.eb-widget-title{margin:0 0 6px;line-height:1.3;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;flex:none}
.eb-widget-body{flex:1;min-height:0;position:relative;display:flex;flex-direction:column}
.eb-text{white-space:pre-wrap;overflow:auto;font-size:13px;line-height:1.4;overflow-wrap:anywhere}
.eb-chart{display:block;width:100%;height:100%;flex:1;min-height:0}
.eb-table-wrap{flex:1;min-height:0;overflow:auto}
.eb-table{width:100%;height:100%;border-collapse:collapse;font-size:12px;line-height:1.3}
.eb-table th,.eb-table td{padding:3px 6px;text-align:left;vertical-align:middle;border-bottom:1px solid;overflow-wrap:break-word}
.eb-table th{font-weight:700;position:sticky;top:0;height:1px}
.eb-table .eb-num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.eb-control-value{display:flex;align-items:center;justify-content:space-between;gap:8px;border:1px solid;border-radius:6px;padding:6px 10px;font-size:13px;background:rgba(255,255,255,.6)}
.eb-control-value span:first-child{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.eb-chevron{width:7px;height:7px;border-right:1.5px solid currentColor;border-bottom:1.5px solid currentColor;transform:rotate(45deg) translateY(-2px);opacity:.6;flex:none}
.eb-caption{margin:auto;font-size:12px;text-align:center}
.eb-caption-detail{display:block;margin-top:4px;font-size:11px;opacity:.85;overflow-wrap:anywhere;max-height:4.2em;overflow:hidden}
.eb-widget.eb-widget--spacer,.eb-widget.eb-widget--divider{background:none;border:0;padding:0}
.eb-widget--divider .eb-widget-body{justify-content:center}
.eb-divider{width:100%;margin:0;border-style:solid none none}
.eb-field{display:flex;flex-direction:column;gap:4px;min-width:0}
.eb-field-label{font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.eb-field-value{font-size:20px;font-weight:700;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.eb-tabs{display:flex;gap:18px;border-bottom:1px solid rgba(0,0,0,.1);font-size:12px;margin-bottom:6px}
.eb-tab{padding-bottom:4px;border-bottom:2px solid transparent;opacity:.8}
.eb-tab--active{font-weight:700;opacity:1}
.eb-empty{text-align:center;padding:48px 16px;opacity:.7}
.eb-chat{border:0;border-radius:999px;color:#fff;padding:7px 14px;font:inherit;font-size:13px;font-weight:600;line-height:1.2;white-space:nowrap;cursor:pointer;flex:none}
.eb-notice{max-width:520px;margin:12vh auto;padding:24px;text-align:center;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2430}
.eb-notice h1{font-size:20px;margin:0 0 8px}
.eb-notice p{margin:0;color:#4b5563;line-height:1.5}`;
