import {
  breakpointFor,
  DEFAULT_RENDER_WIDTH,
  gridPositions,
  gridSpec,
  MAX_RENDER_WIDTH,
  MIN_RENDER_WIDTH,
  maxRows,
} from './grid';
import {
  HEADER_CONTEXT_LINE,
  HEADER_CONTEXT_SIZE,
  HEADER_DESCRIPTION_SIZE,
  HEADER_TITLE_SIZE,
  headerOf,
} from './header';
import type { DashboardLayout, LaidOutWidget, RenderInput } from './render.types';
import { drawableText, wrapText } from './text';
import { resolveTheme } from './theme';
import { type WidgetContents, widgetContents } from './widget-content';

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
