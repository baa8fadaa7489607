import arimoRegular from '@fontsource/arimo/files/arimo-latin-400-normal.woff';
import arimoBold from '@fontsource/arimo/files/arimo-latin-700-normal.woff';

/**
 * Arimo is metric-compatible with Helvetica, the PDF's standard font, so one text measurement
 * serves the SVG/PNG (Arimo, bundled) and the PDF (Helvetica, built into every PDF reader).
 */
export const RENDER_FONT_FAMILY = 'Arimo';

/**
 * WOFF 1.0 → TrueType: the same tables, each zlib-compressed. fontsource ships WOFF/WOFF2 only
 * and resvg reads only TrueType/OpenType, so the bundled WOFF files are unpacked once per isolate.
 */
export async function woffToSfnt(woff: Uint8Array): Promise<Uint8Array> {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  if (view.getUint32(0) !== 0x774f4646) throw new Error('Not a WOFF file');
  const flavor = view.getUint32(4);
  const numTables = view.getUint16(12);
  const tables: { tag: number; checksum: number; data: Uint8Array }[] = [];
  for (let i = 0; i < numTables; i += 1) {
    const entry = 44 + i * 20;
    const offset = view.getUint32(entry + 4);
    const compLength = view.getUint32(entry + 8);
    const origLength = view.getUint32(entry + 12);
    const raw = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? await inflate(raw) : raw;
    if (data.byteLength !== origLength) throw new Error('Corrupt WOFF table');
    tables.push({ tag: view.getUint32(entry), checksum: view.getUint32(entry + 16), data });
  }
  const headerLength = 12 + 16 * numTables;
  const total = tables.reduce((sum, t) => sum + pad4(t.data.byteLength), headerLength);
  const out = new Uint8Array(total);
  const outView = new DataView(out.buffer);
  let searchRange = 1;
  let entrySelector = 0;
  while (searchRange * 2 <= numTables) {
    searchRange *= 2;
    entrySelector += 1;
  }
  outView.setUint32(0, flavor);
  outView.setUint16(4, numTables);
  outView.setUint16(6, searchRange * 16);
  outView.setUint16(8, entrySelector);
  outView.setUint16(10, numTables * 16 - searchRange * 16);
  let offset = headerLength;
  tables.forEach((t, i) => {
    const record = 12 + i * 16;
    outView.setUint32(record, t.tag);
    outView.setUint32(record + 4, t.checksum);
    outView.setUint32(record + 8, offset);
    outView.setUint32(record + 12, t.data.byteLength);
    out.set(t.data, offset);
    offset += pad4(t.data.byteLength);
  });
  return out;
}

const pad4 = (n: number) => (n + 3) & ~3;

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

let fonts: Uint8Array[] | undefined;

/**
 * The TrueType buffers resvg draws text with, unpacked once per isolate. Only the unpacked
 * buffers are shared: two first renders arriving together each unpack (a few milliseconds), since a
 * render waiting on another request's unpacking would wait for ever if that request were
 * cancelled (the runtime drops a cancelled request's work, and the decompression streams are
 * its I/O).
 */
export async function renderFonts(): Promise<Uint8Array[]> {
  if (fonts) return fonts;
  const unpacked = await Promise.all([arimoRegular, arimoBold].map((f) => woffToSfnt(new Uint8Array(f))));
  fonts ??= unpacked;
  return fonts;
}
