import { isKnownTimeZone, utcToZoned } from '../core/time-zone';
import { capitalize, controlEntries, humanize, valueText } from './control-values';
import type { RenderInput } from './render.types';
import { cleanText } from './text';
import { type WidgetContents, widgetContents } from './widget-content';

// The header above the grid: the dashboard's title and description, and one line of what it
// shows (the controls in effect and the data's time).

/** Font sizes and line height of the header, in CSS pixels (the scene draws what the layout sized). */
export const HEADER_TITLE_SIZE = 20;
export const HEADER_DESCRIPTION_SIZE = 13;
export const HEADER_CONTEXT_SIZE = 12;
export const HEADER_CONTEXT_LINE = 18;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * The controls in effect as one line: every FILTER and TIME_GRAIN widget with a value (the
 * render's, else its default), then the render's filters and time grains no widget shows (a
 * locked filter, a notification's filter on a member without a control), then the data's time.
 */
function contextOf(input: RenderInput, contents: WidgetContents): string | null {
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const parts: string[] = [];
  const shown = { filter: new Set<string>(), timeGrain: new Set<string>() };
  for (const c of contents) {
    if (c.content.kind !== 'control') continue;
    const config = obj(obj(widgets[c.index]).config);
    const set = shown[c.content.control];
    set.add(c.id);
    for (const k of [config.member, config.dimension, config.timeDimension]) {
      if (typeof k === 'string') set.add(k);
    }
    if (c.content.applied) parts.push(c.content.applied);
  }
  for (const { keys, name, value } of controlEntries(input.filters)) {
    const text = valueText(value);
    if (text !== null && keys.length > 0 && !keys.some((k) => shown.filter.has(k))) {
      parts.push(`${cleanText(humanize(name), 200)}: ${text}`);
    }
  }
  const grains = controlEntries(input.timeGrains).filter(
    (e) => valueText(e.value) !== null && e.keys.length > 0 && !e.keys.some((k) => shown.timeGrain.has(k)),
  );
  for (const { name, value } of grains) {
    const label = grains.length > 1 ? `Time grain (${humanize(name).toLowerCase()})` : 'Time grain';
    parts.push(`${cleanText(label, 200)}: ${capitalize(valueText(value) as string)}`);
  }
  const asOf = dataTimeText(input.dataTime, input.timeZone);
  if (asOf) parts.push(`Data as of ${asOf}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/**
 * An ISO time as "2026-11-25 21:40 UTC", or in `timeZone` as "2026-11-25 22:40 Europe/Berlin";
 * null when it is not a time. A zone the runtime does not know writes UTC.
 */
export function dataTimeText(value: unknown, timeZone?: string | null): string | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return null;
  const two = (n: number) => String(n).padStart(2, '0');
  if (timeZone && timeZone !== 'UTC' && isKnownTimeZone(timeZone)) {
    const t = utcToZoned(ms, timeZone);
    return `${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)} ${timeZone}`;
  }
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

/**
 * The header: the title (the render's, else the config's), the description and the context line;
 * null when all three are empty.
 */
export function headerOf(
  input: RenderInput,
  contents: WidgetContents = widgetContents(input),
): { title: string; description: string | null; context: string | null } | null {
  const title = cleanText(input.title ?? input.config?.title ?? '', 500);
  const description = cleanText(input.description ?? input.config?.description ?? '', 2_000);
  const context = contextOf(input, contents);
  if (!title && !description && !context) return null;
  return { title, description: description || null, context };
}
