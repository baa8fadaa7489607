import { CURRENCY_SYMBOLS, cleanText } from './text';

/**
 * How a report's numeric field is written (a report's `preferences.columnFormats`, keyed by field
 * key or by its label). See docs/rendering.md, "Column formats".
 */
export interface ColumnFormat {
  type: 'number' | 'currency' | 'percent';
  /** Fixed decimals; null: the type's default (see `formatValue`). */
  decimals: number | null;
  /** ISO 4217 code of a currency format (upper case); null: none. */
  currency: string | null;
  prefix: string;
  suffix: string;
  compact: boolean;
  thousandsSeparator: boolean;
}

export type ColumnFormats = ReadonlyMap<string, ColumnFormat>;

const TYPES = new Set(['number', 'currency', 'percent']);
const MAX_FORMATS = 200;
const MAX_AFFIX = 8;
const MAX_DECIMALS = 6;
const ZERO_DECIMAL_CURRENCIES = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** An object, or JSON text of one (preferences may be stored as text). */
function objectOf(value: unknown): Obj | null {
  if (isObj(value)) return value;
  if (typeof value !== 'string' || value.length > 200_000) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObj(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function affix(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_AFFIX) return '';
  return cleanText(value, MAX_AFFIX).replace(/\n/g, ' ');
}

/** One field's format, or null when its shape is not understood (the field keeps the default). */
export function parseColumnFormat(value: unknown): ColumnFormat | null {
  if (!isObj(value) || typeof value.type !== 'string' || !TYPES.has(value.type)) return null;
  const d = value.decimals;
  const decimals = typeof d === 'number' && Number.isInteger(d) && d >= 0 && d <= MAX_DECIMALS ? d : null;
  const code = typeof value.currency === 'string' ? value.currency.toUpperCase() : '';
  return {
    type: value.type as ColumnFormat['type'],
    decimals,
    currency: value.type === 'currency' && /^[A-Z]{3}$/.test(code) ? code : null,
    prefix: affix(value.prefix),
    suffix: affix(value.suffix),
    compact: value.compact === true,
    thousandsSeparator: value.thousandsSeparator !== false,
  };
}

/**
 * A report's column formats from its `preferences` (an object or its JSON text):
 * `{columnFormats: {<field key or label>: {type, decimals?, currency?, prefix?, suffix?, compact?,
 * thousandsSeparator?}}}`. Entries that are not understood are left out.
 */
export function columnFormatsOf(preferences: unknown): ColumnFormats {
  const formats = new Map<string, ColumnFormat>();
  const table = objectOf(objectOf(preferences)?.columnFormats);
  if (!table) return formats;
  for (const [key, value] of Object.entries(table).slice(0, MAX_FORMATS)) {
    const format = parseColumnFormat(value);
    if (format && key.length <= 200) formats.set(key, format);
  }
  return formats;
}

/** The format of a field, looked up by its key, then by its label. */
export function formatFor(formats: ColumnFormats, key: string, label?: string): ColumnFormat | null {
  return formats.get(key) ?? (label !== undefined ? formats.get(label) : undefined) ?? null;
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** |value| with `decimals` places (trailing zeros dropped when `trim`), thousands grouped or not. */
function fixed(abs: number, decimals: number, trim: boolean, group: boolean): string {
  let text = abs.toFixed(decimals);
  if (trim && text.includes('.')) text = text.replace(/\.?0+$/, '');
  const [int, frac] = text.split('.') as [string, string | undefined];
  const grouped = group ? groupThousands(int) : int;
  return frac ? `${grouped}.${frac}` : grouped;
}

const COMPACT_STEPS: [number, string][] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

/**
 * A number written with a column format, by plain arithmetic (the same text in every runtime and
 * locale): `number` up to 2 decimals, `currency` 2 (0 for JPY, KRW, …), `percent` a ratio × 100 up
 * to 1 decimal, unless `decimals` fixes them; `compact` (or `options.compact`, for axis labels)
 * writes 1.2K / 3.4M / 5B / 6T with up to 1 decimal. The currency's symbol ($ € £ ¥, else
 * "CHF "), then `prefix`, lead; `suffix` (and % for percent) follows; a minus sign leads them all.
 */
export function formatValue(
  value: number,
  format: ColumnFormat,
  options: { compact?: boolean } = {},
): string {
  if (!Number.isFinite(value)) return '';
  let v = format.type === 'percent' ? value * 100 : value;
  const compact = format.compact || options.compact === true;
  let unit = '';
  if (compact) {
    const step = COMPACT_STEPS.find(([size]) => Math.abs(v) >= size * 0.9995);
    if (step) {
      v /= step[0];
      unit = step[1];
    }
  }
  const defaultDecimals =
    compact || format.type === 'percent'
      ? 1
      : format.type === 'currency'
        ? ZERO_DECIMAL_CURRENCIES.has(format.currency ?? '')
          ? 0
          : 2
        : 2;
  const decimals = format.decimals ?? defaultDecimals;
  // Currency amounts keep their cents (1.50, not 1.5) unless compact; other defaults are trimmed.
  const trim = format.decimals === null && !(format.type === 'currency' && !compact);
  let digits = fixed(Math.abs(v), decimals, trim, format.thousandsSeparator);
  // Rounding can carry a compact value to the next step (999.96K → 1,000K): keep it readable.
  if (unit && digits.replace(/,/g, '').startsWith('1000')) {
    const next = COMPACT_STEPS[COMPACT_STEPS.findIndex(([, u]) => u === unit) - 1];
    if (next) {
      digits = fixed(Math.abs(v) / 1000, decimals, trim, format.thousandsSeparator);
      unit = next[1];
    }
  }
  const negative = v < 0 && /[1-9]/.test(digits);
  const code = format.currency;
  const symbol = code ? (CURRENCY_SYMBOLS[code] ?? `${code} `) : '';
  const percent = format.type === 'percent' ? '%' : '';
  return `${negative ? '-' : ''}${symbol}${format.prefix}${digits}${unit}${percent}${format.suffix}`;
}
