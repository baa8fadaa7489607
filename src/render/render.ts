import { computeLayout } from './layout';
import { sceneToPdf } from './pdf';
import { svgToPng } from './png';
import type { DashboardLayout, RenderInput } from './render.types';
import { buildScene } from './scene';
import { sceneToSvg } from './svg';

export type RenderFormat = 'png' | 'pdf' | 'svg';

export const CONTENT_TYPES: Record<RenderFormat, string> = {
  png: 'image/png',
  pdf: 'application/pdf',
  svg: 'image/svg+xml',
};

export interface RenderedDashboard {
  bytes: Uint8Array;
  contentType: string;
  /** The layout drawn (size in CSS pixels, breakpoint, widget boxes). */
  layout: DashboardLayout;
}

/**
 * A dashboard as a file: PNG (resvg), PDF (pdf-lib, vector) or SVG, all drawn from one layout at
 * `width` CSS pixels (default 1280, the lg breakpoint). Runs inside the Worker, fetches nothing;
 * any stored config renders (unknown or broken parts fall back to defaults, never throw).
 */
export async function renderDashboard(
  input: RenderInput,
  format: RenderFormat,
  options: { width?: number } = {},
): Promise<RenderedDashboard> {
  const layout = computeLayout(input, options);
  const scene = buildScene(layout);
  let bytes: Uint8Array;
  if (format === 'pdf') {
    bytes = await sceneToPdf(scene, { title: layout.header?.title });
  } else {
    const svg = sceneToSvg(scene);
    bytes = format === 'svg' ? new TextEncoder().encode(svg) : await svgToPng(svg, scene);
  }
  return { bytes, contentType: CONTENT_TYPES[format], layout };
}
