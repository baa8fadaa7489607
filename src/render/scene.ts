import { chartNodes } from './charts';
import { colorOr, mix } from './color';
import {
  HEADER_CONTEXT_LINE,
  HEADER_CONTEXT_SIZE,
  HEADER_DESCRIPTION_SIZE,
  HEADER_TITLE_SIZE,
} from './header';
import type { DashboardLayout, LaidOutWidget, Rect, ResolvedTheme } from './render.types';
import { dashFor, isBold, push, r2, type Scene, type SceneBlock, type SceneNode, text } from './scene-nodes';
import { drawableText, fitText, measure, wrapText } from './text';

// Widgets and the page around them; the charts inside are drawn by charts.ts.

const WHITE = colorOr(null, '#ffffff');

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
  const room = box.y + box.h - top;
  if (widget.content.caption && room > 14) {
    // A failed query's message goes under the caption, on as many lines (≤ 3) as the box holds.
    const detail = widget.content.detail
      ? wrapText(
          drawableText(widget.content.detail),
          11,
          false,
          box.w,
          Math.min(3, Math.floor((room - 20) / 14)),
        )
      : [];
    const height = 12 + detail.length * 14;
    const baseline = top + (room - height) / 2 + 10;
    push(
      nodes,
      text(box.x + box.w / 2, baseline, widget.content.caption, 12, theme.widget.text.secondary, {
        anchor: 'middle',
        maxWidth: box.w,
      }),
    );
    detail.forEach((line, i) => {
      push(
        nodes,
        text(box.x + box.w / 2, baseline + 16 + i * 14, line, 11, theme.widget.text.secondary, {
          anchor: 'middle',
          maxWidth: box.w,
        }),
      );
    });
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

/** A DIVIDER's rule: across the middle of its box, or down it when the box is taller than wide. */
function dividerLine(rect: Rect): { x1: number; y1: number; x2: number; y2: number } {
  const { x, y, w, h } = rect;
  return h > w
    ? { x1: x + w / 2, y1: y, x2: x + w / 2, y2: y + h }
    : { x1: x, y1: y + h / 2, x2: x + w, y2: y + h / 2 };
}

function fieldBody(nodes: SceneNode[], widget: LaidOutWidget, box: Rect, theme: ResolvedTheme) {
  if (widget.content.kind !== 'field') return;
  const { label, value } = widget.content;
  let top = box.y;
  if (label && box.h >= 14) {
    push(nodes, text(box.x, top + 12, label, 12, theme.widget.text.secondary, { maxWidth: box.w }));
    top += 18;
  }
  const size = Math.max(12, Math.min(24, box.y + box.h - top - 4));
  if (box.y + box.h - top >= 12) {
    push(
      nodes,
      text(box.x, top + size * 0.9, value, size, theme.widget.text.color, { bold: true, maxWidth: box.w }),
    );
  }
}

function widgetBlock(widget: LaidOutWidget, theme: ResolvedTheme): SceneBlock {
  const nodes: SceneNode[] = [];
  const { x, y, w, h } = widget.rect;
  if (widget.content.kind === 'spacer') return { top: y, bottom: y + h, nodes };
  if (widget.content.kind === 'divider') {
    const line = dividerLine(widget.rect);
    nodes.push({
      kind: 'path',
      d: `M${r2(line.x1)} ${r2(line.y1)}L${r2(line.x2)} ${r2(line.y2)}`,
      stroke: theme.widget.border.color,
      strokeWidth: Math.max(1, theme.widget.border.width),
    });
    return { top: y, bottom: y + h, nodes };
  }
  const isControl = widget.content.kind === 'control';
  const look = isControl ? theme.control : theme.widget;
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
    else if (content.kind === 'chart') {
      nodes.push(...chartNodes(content.chart, body, theme, { title: widget.title }));
    } else if (content.kind === 'field') fieldBody(nodes, widget, body, theme);
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
    let y = 16 + HEADER_TITLE_SIZE + 8;
    if (layout.header.description) {
      push(
        nodes,
        text(
          padX,
          y + HEADER_DESCRIPTION_SIZE * 0.85,
          layout.header.description.replace(/\s+/g, ' '),
          HEADER_DESCRIPTION_SIZE,
          theme.widget.text.secondary,
          { maxWidth },
        ),
      );
      y += HEADER_DESCRIPTION_SIZE + 10;
    }
    for (const line of layout.header.contextLines) {
      push(
        nodes,
        text(padX, y + HEADER_CONTEXT_SIZE * 0.85, line, HEADER_CONTEXT_SIZE, theme.widget.text.secondary, {
          maxWidth,
        }),
      );
      y += HEADER_CONTEXT_LINE;
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
  return {
    width: layout.width,
    height: layout.height,
    background: theme.background,
    blocks,
    runningHeader: runningHeader(layout, padX),
    footer: { color: theme.widget.text.secondary, inset: padX },
  };
}

const RUNNING_TITLE_SIZE = 14;
const RUNNING_CONTEXT_SIZE = 11;

/** The title and the controls in effect on one line each, over a rule (a PDF's later pages). */
function runningHeader(layout: DashboardLayout, padX: number): Scene['runningHeader'] {
  const header = layout.header;
  if (!header || (!header.title && !header.context)) return null;
  const theme = layout.theme;
  const maxWidth = layout.width - padX * 2;
  const nodes: SceneNode[] = [];
  let y = 14;
  if (header.title) {
    push(
      nodes,
      text(padX, y + RUNNING_TITLE_SIZE * 0.85, header.title, RUNNING_TITLE_SIZE, theme.widget.title.color, {
        bold: true,
        maxWidth,
      }),
    );
    y += RUNNING_TITLE_SIZE + 6;
  }
  if (header.context) {
    push(
      nodes,
      text(
        padX,
        y + RUNNING_CONTEXT_SIZE * 0.85,
        header.context,
        RUNNING_CONTEXT_SIZE,
        theme.widget.text.secondary,
        {
          maxWidth,
        },
      ),
    );
    y += RUNNING_CONTEXT_SIZE + 6;
  }
  nodes.push({
    kind: 'path',
    d: `M${r2(padX)} ${r2(y + 2)}H${r2(layout.width - padX)}`,
    stroke: mix(theme.background, theme.widget.text.secondary, 0.3),
    strokeWidth: 1,
  });
  return { height: y + 8, nodes };
}
