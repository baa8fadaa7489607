import * as v from 'valibot';

/**
 * The grammar of theme values. They end up inside CSS declarations (the viewer page, the
 * renderers), so each is held to a grammar in which no value can close a declaration, a rule or
 * a `<style>` element: no `;{}<>\` and no unbalanced quote ever gets through.
 */

// No run of digits or spaces can be split two ways (no overlapping repeats), so a test is
// linear in the value's length.
const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)`;
const PERCENT_OR_NUMBER = `${NUMBER}%?`;
const ANGLE = `${NUMBER}(?:deg|rad|grad|turn)?`;
const SEP = String.raw`(?:\s*[,/]\s*|\s+)`;

const color = new RegExp(
  '^(?:' +
    [
      '#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})',
      `rgba?\\(\\s*${PERCENT_OR_NUMBER}(?:${SEP}${PERCENT_OR_NUMBER}){2,3}\\s*\\)`,
      `hsla?\\(\\s*${ANGLE}(?:${SEP}${PERCENT_OR_NUMBER}){2,3}\\s*\\)`,
      '[a-zA-Z]{1,40}',
    ].join('|') +
    ')$',
);
const LENGTH_UNITS = 'px|em|rem|%|vh|vw|vmin|vmax|pt|pc|cm|mm|in|ch|ex';
/** One to four lengths (`8px`, `4px 8px`), a bare number meaning pixels. */
const lengths = new RegExp(`^${NUMBER}(?:${LENGTH_UNITS})?(?:\\s+${NUMBER}(?:${LENGTH_UNITS})?){0,3}$`);
const fontSize = new RegExp(`^(?:${NUMBER}(?:${LENGTH_UNITS})?|[a-z-]{1,20})$`);
const fontWeight = /^(?:[1-9]00|normal|bold|bolder|lighter)$/;
const borderStyle = /^(?:none|hidden|dotted|dashed|solid|double|groove|ridge|inset|outset)$/;
/** A family name: letters, digits, spaces, hyphens, underscores; optionally in matching quotes. */
const family = /^(?:[\p{L}\p{N} _-]+|"[\p{L}\p{N} _-]+"|'[\p{L}\p{N} _-]+')$/u;
const themeId = /^[A-Za-z0-9_-]{1,100}$/;

const isFontFamily = (s: string) => s.split(',').every((part) => family.test(part.trim()));

/** A nullable theme leaf of at most 255 characters matching `test`. */
const leaf = (test: (s: string) => boolean, what: string) =>
  v.nullish(
    v.pipe(
      v.string(),
      v.maxLength(255),
      // valibot runs a check even after maxLength failed: never test a longer value.
      v.check((s) => s.length <= 255 && test(s), `Expected ${what}`),
      v.metadata({ description: `${what[0]?.toUpperCase()}${what.slice(1)}.` }),
    ),
  );

/** `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`/`hsl()`/`hsla()` of numbers, or a named colour. */
export const cssColor = leaf(
  (s) => color.test(s),
  'a colour: #rgb, #rrggbb, #rrggbbaa, rgb()/rgba()/hsl()/hsla() with numbers, or a colour name',
);
/** One to four lengths: a number with an optional unit (px when none). */
export const cssLengths = leaf((s) => lengths.test(s), 'one to four lengths: a number with a CSS unit');
export const cssFontSize = leaf(
  (s) => fontSize.test(s),
  'a font size: a number with a CSS unit, or a keyword',
);
export const cssFontWeight = leaf(
  (s) => fontWeight.test(s),
  'a font weight: 100–900, normal, bold, bolder, lighter',
);
export const cssBorderStyle = leaf((s) => borderStyle.test(s), 'a border style keyword (solid, dashed, …)');
/** Comma-separated family names of letters, digits, spaces, hyphens, each optionally quoted. */
export const cssFontFamily = leaf(
  isFontFamily,
  'a font family list: comma-separated names of letters, digits, spaces and hyphens, each optionally in matching quotes',
);
export const cssThemeId = leaf((s) => themeId.test(s), 'a theme id: letters, digits, "_" and "-"');
