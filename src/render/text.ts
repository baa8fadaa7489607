import { StandardFontEmbedder, StandardFonts } from 'pdf-lib';

let regular: StandardFontEmbedder | undefined;
let bold: StandardFontEmbedder | undefined;

/**
 * Helvetica's metrics (Arimo, the PNG font, shares them), loaded once per isolate. pdf-lib's
 * StandardFonts and the embedder's FontNames are the same strings under two enum types.
 */
export function helvetica(isBold: boolean): StandardFontEmbedder {
  if (isBold) {
    bold ??= StandardFontEmbedder.for(StandardFonts.HelveticaBold as never);
    return bold;
  }
  regular ??= StandardFontEmbedder.for(StandardFonts.Helvetica as never);
  return regular;
}

// XML forbids these (and resvg would refuse the SVG): strip C0 controls except \t \n, lone
// surrogates and non-characters from every text a dashboard carries.
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as every output may carry it. */
export function cleanText(input: unknown, max = 20_000): string {
  if (typeof input !== 'string') return '';
  return input.slice(0, max).replace(FORBIDDEN, '').replace(/\r\n?/g, '\n').replace(/\t/g, '  ');
}

/**
 * The text as Helvetica (WinAnsi) can draw it: characters outside Windows-1252 become "?". The
 * PNG and PDF draw this same string, so both outputs lay out identically.
 */
export function drawableText(text: string): string {
  const encoding = helvetica(false).encoding;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    out += ch === '\n' || encoding.canEncodeUnicodeCodePoint(cp) ? ch : '?';
  }
  return out;
}

// Widths at 1000 units per em, per isolate: the viewer measures the same labels for every
// breakpoint's drawing, and fitting a label measures its prefixes again and again.
const widthCache = [new Map<string, number>(), new Map<string, number>()];
const WIDTH_CACHE_SIZE = 20_000;

export function measure(text: string, size: number, isBold = false): number {
  if (text.length === 0) return 0;
  const cache = widthCache[isBold ? 1 : 0] as Map<string, number>;
  let width = cache.get(text);
  if (width === undefined) {
    width = helvetica(isBold).widthOfTextAtSize(text, 1000);
    if (cache.size >= WIDTH_CACHE_SIZE) cache.clear();
    if (text.length <= 200) cache.set(text, width);
  }
  return (width * size) / 1000;
}

const ELLIPSIS = '…';

/** The text, cut with an ellipsis so it fits `maxWidth`. */
export function fitText(text: string, size: number, isBold: boolean, maxWidth: number): string {
  if (maxWidth <= 0) return '';
  if (measure(text, size, isBold) <= maxWidth) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid) + ELLIPSIS, size, isBold) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : text.slice(0, lo).trimEnd() + ELLIPSIS;
}

/** The longest prefix of `text` (at least one character) that fits `maxWidth`. */
function fittingPrefix(text: string, size: number, isBold: boolean, maxWidth: number): number {
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid), size, isBold) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Word-wrapped lines (paragraphs kept); the last line ends with an ellipsis when text is cut. */
export function wrapText(
  text: string,
  size: number,
  isBold: boolean,
  maxWidth: number,
  maxLines: number,
): string[] {
  const lines: string[] = [];
  if (maxLines <= 0 || maxWidth <= 0) return lines;
  // One line beyond the limit tells whether the text was cut.
  const limit = maxLines + 1;
  outer: for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (measure(candidate, size, isBold) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line) {
        lines.push(line);
        if (lines.length >= limit) break outer;
      }
      let rest = word;
      while (rest.length > 1 && measure(rest, size, isBold) > maxWidth) {
        const n = fittingPrefix(rest, size, isBold, maxWidth);
        lines.push(rest.slice(0, n));
        if (lines.length >= limit) break outer;
        rest = rest.slice(n);
      }
      line = rest;
    }
    lines.push(line);
    if (lines.length >= limit) break;
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept.length - 1;
  kept[last] = fitText(`${kept[last]}${ELLIPSIS}`, size, isBold, maxWidth);
  return kept;
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const full = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
/**
 * The currencies written by their symbol, which the PDF's Helvetica and the PNG's Arimo can draw
 * (other codes are written as "CHF 12"); a chart's `unit` may be one of the symbols.
 */
export const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' };
const PREFIX_UNITS = new Set(Object.values(CURRENCY_SYMBOLS));

/** Axis labels are compact (12K); single figures are written out up to a trillion. */
export function formatNumber(
  value: number,
  style: 'compact' | 'full' = 'full',
  unit?: string | null,
): string {
  const text = style === 'compact' || Math.abs(value) >= 1e12 ? compact.format(value) : full.format(value);
  if (!unit) return text;
  if (PREFIX_UNITS.has(unit)) return text.startsWith('-') ? `-${unit}${text.slice(1)}` : `${unit}${text}`;
  return unit === '%' ? `${text}%` : `${text} ${unit}`;
}
