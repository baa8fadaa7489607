import type { Rgba } from './color';
import type { TitleStyle } from './render.types';
import { drawableText, fitText } from './text';

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
      /** Shown on hover in the viewer (an SVG `<title>`); PNG and PDF ignore it. */
      tooltip?: string;
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
      /** Degrees about (x, y), clockwise on screen (-45: rising to the right); absent: level. */
      rotate?: number;
      /** The full text of a label that was cut, shown on hover in the viewer (an SVG `<title>`). */
      tooltip?: string;
    }
  | { kind: 'path'; d: string; fill?: Rgba; stroke?: Rgba; strokeWidth?: number; tooltip?: string };

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
  /**
   * What a PDF repeats at the top of every page after the first (the first has the dashboard's
   * header): the title and the controls in effect, drawn from y = 0 in `height` pixels.
   */
  runningHeader: { height: number; nodes: SceneNode[] } | null;
  /** A PDF's page numbers: colour and right inset. */
  footer: { color: Rgba; inset: number };
}

/** Coordinates rounded to 1/100 px: small SVG, stable output. */
export const r2 = (n: number) => Math.round(n * 100) / 100;
/**
 * A text node at its baseline, cut to `maxWidth` (a cut one carries its full text as a tooltip);
 * null when nothing drawable is left.
 */
export function text(
  x: number,
  y: number,
  value: string,
  size: number,
  color: Rgba,
  options: { bold?: boolean; anchor?: 'start' | 'middle' | 'end'; maxWidth?: number; rotate?: number } = {},
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
    ...(options.rotate ? { rotate: options.rotate } : {}),
    ...(fitted !== drawable ? { tooltip: value.replace(/\s+/g, ' ').trim() } : {}),
  };
}

export const isBold = (t: TitleStyle) => t.fontWeight >= 600;
export const push = (nodes: SceneNode[], node: SceneNode | null) => {
  if (node) nodes.push(node);
};

export function dashFor(style: string, width: number): number[] | undefined {
  if (style === 'dashed') return [width * 4, width * 3];
  if (style === 'dotted') return [width, width * 2];
  return undefined;
}
