import { cleanText } from './text';

// The values of the render's filters and time grains, and of its control widgets: what content
// shows in a FILTER/TIME_GRAIN/FIELD widget and what the header lists as in effect.

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Entries of a render's `filters`/`timeGrains` (a map or a list): the names each goes by (widget
 * id first, as controls look values up), the one to show (its member, else its key) and its value.
 */
export function controlEntries(input: unknown): { keys: string[]; name: string; value: unknown }[] {
  const str = (k: unknown): k is string => typeof k === 'string' && k !== '';
  if (Array.isArray(input)) {
    return input.map((entry) => {
      const e = obj(entry);
      const value =
        'value' in e ? e.value : 'values' in e ? e.values : 'grain' in e ? e.grain : e.granularity;
      const keys = [e.widgetId, e.id, e.member, e.dimension].filter(str);
      const name = [e.member, e.dimension, ...keys].find(str) ?? '';
      return { keys, name, value };
    });
  }
  return Object.entries(obj(input)).map(([key, value]) => ({ keys: [key], name: key, value }));
}

/** The render's values by every name they go by; the first entry to claim a name keeps it. */
export function lookupTable(input: unknown): Map<string, unknown> {
  const table = new Map<string, unknown>();
  for (const { keys, value } of controlEntries(input)) {
    for (const key of keys) if (!table.has(key)) table.set(key, value);
  }
  return table;
}

/** A value as shown (a list joined by commas); null when there is none. */
export function valueText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) {
    const parts = value.map(valueText).filter((v): v is string => v !== null);
    return parts.length > 0 ? parts.join(', ') : null;
  }
  if (typeof value === 'object') {
    const o = value as Obj;
    return valueText(o.values ?? o.value ?? o.label ?? null);
  }
  return cleanText(String(value), 500);
}

/** The first letter upper-cased. */
export const capitalize = (s: string) => (s ? s[0]?.toUpperCase() + s.slice(1) : s);

/**
 * A control widget's value: the render's, looked up by the widget's id and then by the config's
 * `keys` (its member…), else the first of its `defaults` the config has; null when none.
 */
export function currentValue(
  table: Map<string, unknown>,
  id: string,
  config: Obj,
  keys: string[],
  defaults: string[],
): string | null {
  for (const key of [id, ...keys.map((k) => config[k])]) {
    if (typeof key === 'string' && table.has(key)) {
      const found = valueText(table.get(key));
      if (found !== null) return found;
    }
  }
  for (const k of defaults) {
    const found = valueText(config[k]);
    if (found !== null) return found;
  }
  return null;
}

/** A member as a person reads it: `orders.created_at` → "Created at". */
export function humanize(member: string): string {
  const last = member.split('.').pop() ?? member;
  return capitalize(last.replace(/[_-]+/g, ' ').trim()) || member;
}
