import { initWasm, Resvg } from '@resvg/resvg-wasm';
import resvgWasm from '@resvg/resvg-wasm/index_bg.wasm';
import { RENDER_FONT_FAMILY, renderFonts } from './fonts';

let ready: Promise<void> | undefined;

function ensureWasm(): Promise<void> {
  ready ??= initWasm(resvgWasm).catch((err) => {
    ready = undefined;
    throw err;
  });
  return ready;
}

/**
 * The most pixels one PNG may have. WASM memory only grows, and an isolate has 128 MB: a taller
 * dashboard is drawn smaller rather than risking the isolate.
 */
export const MAX_PNG_PIXELS = 8_000_000;

/** SVG → PNG with resvg (WASM, bundled) and the bundled Arimo font; nothing is fetched. */
export async function svgToPng(svg: string, size: { width: number; height: number }): Promise<Uint8Array> {
  const [, fontBuffers] = await Promise.all([ensureWasm(), renderFonts()]);
  // resvg rounds the zoomed size up: budget for the extra pixel on each side.
  const zoom = Math.min(1, Math.sqrt(MAX_PNG_PIXELS / ((size.width + 1) * (size.height + 1))));
  const resvg = new Resvg(svg, {
    font: { fontBuffers, defaultFontFamily: RENDER_FONT_FAMILY, sansSerifFamily: RENDER_FONT_FAMILY },
    fitTo: zoom < 1 ? { mode: 'zoom', value: zoom } : { mode: 'original' },
  });
  try {
    const image = resvg.render();
    try {
      return image.asPng();
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
