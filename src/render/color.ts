/** A colour as the renderers need it: 0–255 channels and an alpha of 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

// CSS named colours. Theme values are free strings; anything not understood falls back to the
// default, so no theme can inject markup into SVG/HTML or break the PDF's colour operators.
const NAMED =
  'aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc darkred:8b0000 darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0 forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 lightgrey:d3d3d3 lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa lightslategray:778899 lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 slategrey:708090 snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32';

let named: Map<string, string> | undefined;

function namedHex(name: string): string | undefined {
  named ??= new Map(NAMED.split(' ').map((pair) => pair.split(':') as [string, string]));
  return named.get(name);
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

function fromHex(hex: string): Rgba | undefined {
  let h = hex;
  if (h.length === 3 || h.length === 4) h = [...h].map((c) => c + c).join('');
  if (h.length !== 6 && h.length !== 8) return undefined;
  const n = (i: number) => Number.parseInt(h.slice(i, i + 2), 16);
  return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? Math.round((n(6) / 255) * 1000) / 1000 : 1 };
}

function channel(part: string, max: number): number | undefined {
  const m = /^(-?\d*\.?\d+)(%?)$/.exec(part);
  if (!m) return undefined;
  const value = Number(m[1]);
  return clamp(m[2] ? (value / 100) * max : value, 0, max);
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

/** Parses a CSS colour (hex, rgb[a](), hsl[a](), a named colour, transparent); undefined if not one. */
export function parseColor(input: unknown): Rgba | undefined {
  if (typeof input !== 'string') return undefined;
  const s = input.trim().toLowerCase();
  if (s.length === 0 || s.length > 64) return undefined;
  if (s === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  if (s.startsWith('#')) return /^#[0-9a-f]+$/.test(s) ? fromHex(s.slice(1)) : undefined;
  const hex = namedHex(s);
  if (hex) return fromHex(hex);
  const fn = /^(rgba?|hsla?)\(([^()]*)\)$/.exec(s);
  if (!fn) return undefined;
  const parts = (fn[2] as string)
    .replace('/', ' ')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const alpha = parts[3] === undefined ? 1 : channel(parts[3], 1);
  if (alpha === undefined) return undefined;
  if ((fn[1] as string).startsWith('rgb')) {
    const [r, g, b] = parts.slice(0, 3).map((p) => channel(p, 255));
    if (r === undefined || g === undefined || b === undefined) return undefined;
    return { r: Math.round(r), g: Math.round(g), b: Math.round(b), a: alpha };
  }
  const hue = /^(-?\d*\.?\d+)(deg)?$/.exec(parts[0] as string);
  const sat = channel(parts[1] as string, 100);
  const light = channel(parts[2] as string, 100);
  if (!hue || sat === undefined || light === undefined) return undefined;
  const [r, g, b] = hslToRgb(((Number(hue[1]) % 360) + 360) % 360, sat / 100, light / 100);
  return { r, g, b, a: alpha };
}

export function colorOr(input: unknown, fallback: string): Rgba {
  return parseColor(input) ?? (parseColor(fallback) as Rgba);
}

// Output is built from clamped numbers only, whatever a caller put into an Rgba.
const byte = (n: number) => (Number.isFinite(n) ? clamp(Math.round(n), 0, 255) : 0);
const alpha = (n: number) => (Number.isFinite(n) ? clamp(Math.round(n * 1000) / 1000, 0, 1) : 1);
const hex2 = (n: number) => byte(n).toString(16).padStart(2, '0');

/** `#rrggbb`, the alpha carried separately (SVG fill-opacity, PDF opacity). */
export function toHex(c: Rgba): string {
  return `#${hex2(c.r)}${hex2(c.g)}${hex2(c.b)}`;
}

/** CSS form with alpha. */
export function toCss(c: Rgba): string {
  const a = alpha(c.a);
  return a >= 1 ? toHex(c) : `rgba(${byte(c.r)},${byte(c.g)},${byte(c.b)},${a})`;
}

/** Mixes `c` towards `other` by `t` (0–1); used for derived shades (gridlines, area fills). */
export function mix(c: Rgba, other: Rgba, t: number): Rgba {
  const m = (x: number, y: number) => Math.round(x + (y - x) * t);
  return { r: m(c.r, other.r), g: m(c.g, other.g), b: m(c.b, other.b), a: c.a + (other.a - c.a) * t };
}

export function withAlpha(c: Rgba, a: number): Rgba {
  return { ...c, a };
}
