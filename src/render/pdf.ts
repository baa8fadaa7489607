import { type Color, degrees, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import type { Rgba } from './color';
import { type Scene, type SceneBlock, type SceneNode, text } from './scene-nodes';

/** CSS pixels to PDF points (96 dpi → 72 dpi). */
const PX = 0.75;
/** Top margin of every page after the first when there is no running header to draw there. */
const PAGE_TOP_MARGIN = 16;
/** The band at the bottom of every page that holds its number. */
export const PAGE_FOOTER_HEIGHT = 24;
const FOOTER_SIZE = 10;

export interface PdfPage {
  /** The part of the scene (pixels) the page shows. */
  start: number;
  end: number;
  blocks: SceneBlock[];
}

/**
 * Splits the scene into pages of (at least) `pageHeight` pixels, cutting only between blocks so
 * no widget is ever split; a widget taller than a page gets a taller page of its own. Each page
 * keeps `margins.top` (after the first page) and `margins.bottom` free for its header and footer.
 */
export function paginate(
  scene: Scene,
  pageHeight: number,
  margins: { top: number; bottom: number } = { top: PAGE_TOP_MARGIN, bottom: 0 },
): PdfPage[] {
  const blocks = [...scene.blocks].sort((a, b) => a.top - b.top);
  const pages: PdfPage[] = [];
  let start = 0;
  let rest = blocks;
  while (rest.length > 0) {
    const room = pageHeight - (pages.length === 0 ? 0 : margins.top) - margins.bottom;
    const crosses = (cut: number) => rest.some((b) => b.top < cut && b.bottom > cut);
    // A cut must leave at least one block on the page, hence tops below the first one only.
    const first = (rest[0] as SceneBlock).top;
    const candidates = [...new Set(rest.map((b) => b.top).filter((t) => t > first)), scene.height]
      .filter((cut) => !crosses(cut))
      .sort((a, b) => a - b);
    const fitting = candidates.filter((cut) => cut - start <= room);
    const end = fitting.length > 0 ? (fitting[fitting.length - 1] as number) : (candidates[0] as number);
    pages.push({ start, end, blocks: rest.filter((b) => b.top < end) });
    rest = rest.filter((b) => b.top >= end);
    start = end;
  }
  if (pages.length === 0) pages.push({ start: 0, end: scene.height, blocks: [] });
  return pages;
}

const color = (c: Rgba): Color => rgb(c.r / 255, c.g / 255, c.b / 255);
const finite = (v: number) => (Number.isFinite(v) ? v : 0);

function roundedRect(x: number, y: number, w: number, h: number, r: number): string {
  if (r <= 0) return `M${x} ${y}H${x + w}V${y + h}H${x}Z`;
  return `M${x + r} ${y}H${x + w - r}A${r} ${r} 0 0 1 ${x + w} ${y + r}V${y + h - r}A${r} ${r} 0 0 1 ${x + w - r} ${y + h}H${x + r}A${r} ${r} 0 0 1 ${x} ${y + h - r}V${y + r}A${r} ${r} 0 0 1 ${x + r} ${y}Z`;
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

function shape(
  page: PDFPage,
  d: string,
  top: number,
  fill: Rgba | undefined,
  stroke: Rgba | undefined,
  strokeWidth: number,
  dash?: number[],
) {
  if (!fill && !stroke) return;
  if (fill && fill.a <= 0 && !stroke) return;
  page.drawSvgPath(d, {
    x: 0,
    y: page.getHeight() + top * PX,
    scale: PX,
    ...(fill ? { color: color(fill), opacity: fill.a } : {}),
    ...(stroke
      ? {
          borderColor: color(stroke),
          borderOpacity: stroke.a,
          borderWidth: strokeWidth,
          ...(dash ? { borderDashArray: dash } : {}),
        }
      : {}),
  });
}

function drawNode(page: PDFPage, node: SceneNode, offset: number, fonts: Fonts) {
  switch (node.kind) {
    case 'rect': {
      const d = roundedRect(
        finite(node.x),
        finite(node.y - offset),
        Math.max(0, finite(node.w)),
        Math.max(0, finite(node.h)),
        node.r,
      );
      shape(page, d, 0, node.fill, node.stroke, node.strokeWidth ?? 1, node.dash);
      return;
    }
    case 'path':
      // The path's own coordinates are absolute scene pixels: shift the page up by the offset.
      shape(page, node.d, offset, node.fill, node.stroke, node.strokeWidth ?? 1);
      return;
    case 'text': {
      const font = node.bold ? fonts.bold : fonts.regular;
      const size = node.size * PX;
      const width = font.widthOfTextAtSize(node.text, size);
      const shift = node.anchor === 'middle' ? width / 2 : node.anchor === 'end' ? width : 0;
      // The scene turns clockwise with y down; PDF turns anticlockwise with y up: the same angle
      // negated. The anchor's shift runs along the turned baseline.
      const angle = -(node.rotate ?? 0);
      const rad = (angle * Math.PI) / 180;
      page.drawText(node.text, {
        x: finite(node.x) * PX - shift * Math.cos(rad),
        y: page.getHeight() - finite(node.y - offset) * PX - shift * Math.sin(rad),
        ...(angle ? { rotate: degrees(angle) } : {}),
        size,
        font,
        color: color(node.color),
        opacity: node.color.a,
      });
    }
  }
}

/**
 * The scene as a vector PDF: text stays text (Helvetica, metric-twin of the PNG's Arimo), pages
 * are A4-landscape shaped at the render width and break between widgets. The first page starts
 * with the dashboard's header; every later one repeats the scene's running header (title, the
 * controls in effect, the data's time); every page ends with "Page i of n".
 */
export async function sceneToPdf(scene: Scene, meta: { title?: string | null } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(meta.title || 'Dashboard');
  doc.setCreator('edgeboard');
  doc.setProducer('edgeboard');
  const fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
  const pageHeight = Math.round((scene.width * 210) / 297);
  const top = scene.runningHeader?.height ?? PAGE_TOP_MARGIN;
  const pages = paginate(scene, pageHeight, { top, bottom: PAGE_FOOTER_HEIGHT });
  pages.forEach((p, i) => {
    const margin = i === 0 ? 0 : top;
    const heightPx = Math.max(pageHeight, p.end - p.start + margin + PAGE_FOOTER_HEIGHT);
    const page = doc.addPage([scene.width * PX, heightPx * PX]);
    const offset = p.start - margin;
    page.drawRectangle({
      x: 0,
      y: 0,
      width: page.getWidth(),
      height: page.getHeight(),
      color: color(scene.background),
      opacity: scene.background.a,
    });
    for (const block of p.blocks) for (const node of block.nodes) drawNode(page, node, offset, fonts);
    if (i > 0 && scene.runningHeader) {
      for (const node of scene.runningHeader.nodes) drawNode(page, node, 0, fonts);
    }
    const footer = text(
      scene.width - scene.footer.inset,
      heightPx - 9,
      `Page ${i + 1} of ${pages.length}`,
      FOOTER_SIZE,
      scene.footer.color,
      { anchor: 'end' },
    );
    if (footer) drawNode(page, footer, 0, fonts);
  });
  return doc.save();
}
