import { escapeMarkup } from '../core/text';
import { type Rgba, toHex } from './color';
import { RENDER_FONT_FAMILY } from './fonts';
import type { Scene, SceneNode } from './scene-nodes';

const n = (v: number) => (Number.isFinite(v) ? String(Math.round(v * 100) / 100) : '0');

function paint(attr: 'fill' | 'stroke', c: Rgba | undefined): string {
  if (!c) return ` ${attr}="none"`;
  return ` ${attr}="${toHex(c)}"${c.a < 1 ? ` ${attr}-opacity="${n(c.a)}"` : ''}`;
}

/** The element, closed with a `<title>` child when it has a tooltip and tooltips are wanted. */
function withTooltip(open: string, tooltip: string | undefined, tooltips: boolean): string {
  if (!tooltips || !tooltip) return `${open}/>`;
  const tag = /^<([a-z]+)/.exec(open)?.[1] as string;
  return `${open}><title>${escapeMarkup(tooltip)}</title></${tag}>`;
}

function node(s: SceneNode, fontFamily: string, tooltips: boolean): string {
  switch (s.kind) {
    case 'rect': {
      const stroke = s.stroke
        ? `${paint('stroke', s.stroke)} stroke-width="${n(s.strokeWidth ?? 1)}"${s.dash ? ` stroke-dasharray="${s.dash.map(n).join(' ')}"` : ''}`
        : '';
      const radius = s.r > 0 ? ` rx="${n(s.r)}"` : '';
      return withTooltip(
        `<rect x="${n(s.x)}" y="${n(s.y)}" width="${n(Math.max(0, s.w))}" height="${n(Math.max(0, s.h))}"${radius}${paint('fill', s.fill)}${stroke}`,
        s.tooltip,
        tooltips,
      );
    }
    case 'text': {
      const anchor = s.anchor === 'start' ? '' : ` text-anchor="${s.anchor}"`;
      const weight = s.bold ? ' font-weight="700"' : '';
      const rotate = s.rotate ? ` transform="rotate(${n(s.rotate)} ${n(s.x)} ${n(s.y)})"` : '';
      const title = tooltips && s.tooltip ? `<title>${escapeMarkup(s.tooltip)}</title>` : '';
      return `<text x="${n(s.x)}" y="${n(s.y)}" font-size="${n(s.size)}" font-family="${fontFamily}"${weight}${anchor}${rotate}${paint('fill', s.color)} xml:space="preserve">${title}${escapeMarkup(s.text)}</text>`;
    }
    case 'path': {
      const stroke = s.stroke
        ? ` stroke-width="${n(s.strokeWidth ?? 1)}" stroke-linejoin="round" stroke-linecap="round"`
        : '';
      return withTooltip(
        `<path d="${escapeMarkup(s.d)}"${paint('fill', s.fill)}${paint('stroke', s.stroke)}${stroke}`,
        s.tooltip,
        tooltips,
      );
    }
  }
}

/**
 * Scene nodes as SVG elements (the viewer inlines them, with `tooltips`; `sceneToSvg` wraps a
 * whole render, without: a PNG cannot show them).
 */
export function nodesToSvg(
  nodes: readonly SceneNode[],
  fontFamily = RENDER_FONT_FAMILY,
  options: { tooltips?: boolean } = {},
): string {
  const family = escapeMarkup(fontFamily);
  const tooltips = options.tooltips === true;
  return nodes.map((s) => node(s, family, tooltips)).join('');
}

/** A standalone SVG document of the scene, drawn with the bundled font (what the PNG rasterises). */
export function sceneToSvg(scene: Scene): string {
  const body = scene.blocks.map((b) => nodesToSvg(b.nodes)).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" viewBox="0 0 ${scene.width} ${scene.height}"><rect width="100%" height="100%"${paint('fill', scene.background)}/>${body}</svg>`;
}
