import { createRouter } from './router';

/**
 * The two paths a person or a browser opens on the API's bare origin: `/` (the URL `npm start`
 * prints) leads to the API reference, and `/favicon.ico`, which every browser asks for, is a
 * small icon instead of a 404 in the console.
 */

const SIZE = 16;

/**
 * A 16×16 icon in the ICO format (one 32-bit BMP image): a rounded square in the theme's primary
 * colour (#4f46e5) with three white bars, a bar chart. Built once from code, so no binary file
 * is committed and nothing is read at run time.
 */
function icon(): Uint8Array {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // 1 bit per pixel, rows padded to 4 bytes; all 0: the alpha decides
  const image = 40 + pixels + mask;
  const bytes = new Uint8Array(6 + 16 + image);
  const view = new DataView(bytes.buffer);
  // ICONDIR: reserved, type 1 (icon), one image.
  view.setUint16(2, 1, true);
  view.setUint16(4, 1, true);
  // ICONDIRENTRY: 16×16, no palette, 1 plane, 32 bpp, the image's size and offset.
  bytes[6] = SIZE;
  bytes[7] = SIZE;
  view.setUint16(10, 1, true);
  view.setUint16(12, 32, true);
  view.setUint32(14, image, true);
  view.setUint32(18, 22, true);
  // BITMAPINFOHEADER: the height counts the image and its mask.
  view.setUint32(22, 40, true);
  view.setInt32(26, SIZE, true);
  view.setInt32(30, SIZE * 2, true);
  view.setUint16(34, 1, true);
  view.setUint16(36, 32, true);
  view.setUint32(42, pixels + mask, true);
  const bars = [
    [4, 6, 9],
    [7, 9, 5],
    [10, 12, 7],
  ] as const; // [from x, to x (inclusive), height from the bottom edge of 13]
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // BMP rows run bottom-up
    for (let x = 0; x < SIZE; x++) {
      const corner = (x === 0 || x === SIZE - 1) && (y === 0 || y === SIZE - 1);
      const bar = bars.some(([from, to, h]) => x >= from && x <= to && y <= 12 && y > 12 - h);
      const at = 62 + (row * SIZE + x) * 4;
      // BGRA
      const [b, g, r] = bar ? [255, 255, 255] : [0xe5, 0x46, 0x4f];
      bytes[at] = b;
      bytes[at + 1] = g;
      bytes[at + 2] = r;
      bytes[at + 3] = corner ? 0 : 255;
    }
  }
  return bytes;
}

const FAVICON = icon();

/** `/` and `/favicon.ico`. Mounted at the root; neither is part of the OpenAPI document. */
export const homeRoutes = createRouter()
  .get('/', (c) => c.redirect('/docs', 302))
  .get('/favicon.ico', (c) => {
    c.header('content-type', 'image/x-icon');
    c.header('cache-control', 'public, max-age=86400');
    return c.body(FAVICON.slice().buffer);
  });
