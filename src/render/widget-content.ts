import { parseChartSpec, toNumber } from './chart-spec';
import { columnFormatsOf } from './column-format';
import { capitalize, currentValue, humanize, lookupTable } from './control-values';
import type { LaidOutWidget, RenderInput, RenderSnapshot, WidgetContent } from './render.types';
import { cleanText } from './text';

// What each widget shows, whatever its size: the same for every breakpoint and every output.

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** Longest query error shown under "Could not load data". */
export const MAX_ERROR_LENGTH = 200;

/** A snapshot's query error as shown: one line, bounded; null when the query did not fail. */
function errorText(error: unknown): string | null {
  if (typeof error !== 'string') return null;
  const line = cleanText(error, 2_000).replace(/\s+/g, ' ').trim();
  if (!line) return null;
  // By code points, so a cut never splits a surrogate pair.
  const chars = Array.from(line);
  return chars.length > MAX_ERROR_LENGTH
    ? `${chars
        .slice(0, MAX_ERROR_LENGTH - 1)
        .join('')
        .trimEnd()}…`
    : line;
}

function snapshotFor(config: Obj, snapshots: readonly RenderSnapshot[]): RenderSnapshot | undefined {
  const reportId = toNumber(config.reportId);
  const snapshotId = toNumber(config.reportSnapshotId ?? config.snapshotId);
  return snapshots.find(
    (s) => (reportId !== null && s.reportId === reportId) || (snapshotId !== null && s.id === snapshotId),
  );
}

function contentOf(
  type: string,
  id: string,
  config: Obj,
  input: RenderInput,
  tables: { filters: Map<string, unknown>; grains: Map<string, unknown> },
): { content: WidgetContent; fallbackTitle: string | null } {
  switch (type) {
    case 'TEXT':
      return { content: { kind: 'text', text: cleanText(config.text) }, fallbackTitle: null };
    case 'FILTER': {
      const label = cleanText(config.label ?? config.member ?? config.dimension ?? '', 200) || 'Filter';
      const value = currentValue(
        tables.filters,
        id,
        config,
        ['member', 'dimension'],
        ['value', 'values', 'defaultValue', 'defaultValues'],
      );
      // The header names it as its widget does, else by its member as a person reads it.
      const member = config.member ?? config.dimension;
      const name =
        cleanText(config.title ?? config.label ?? '', 200) ||
        (typeof member === 'string' ? cleanText(humanize(member), 200) : '') ||
        'Filter';
      return {
        content: {
          kind: 'control',
          control: 'filter',
          label,
          value: value ?? 'All',
          applied: value === null ? null : `${name}: ${value}`,
        },
        fallbackTitle: label,
      };
    }
    case 'TIME_GRAIN': {
      const label =
        cleanText(config.label ?? config.member ?? config.timeDimension ?? '', 200) || 'Time grain';
      const value = currentValue(
        tables.grains,
        id,
        config,
        ['member', 'timeDimension'],
        ['value', 'grain', 'granularity', 'defaultValue', 'defaultGrain'],
      );
      const name = cleanText(config.title ?? config.label ?? '', 200) || 'Time grain';
      return {
        content: {
          kind: 'control',
          control: 'timeGrain',
          label,
          value: value ? capitalize(value) : 'Auto',
          applied: value ? `${name}: ${capitalize(value)}` : null,
        },
        fallbackTitle: label,
      };
    }
    case 'CHART': {
      const snapshot = snapshotFor(config, input.reportSnapshots ?? []);
      const fallbackTitle = cleanText(snapshot?.title || snapshot?.name || '', 500) || null;
      const error = errorText(snapshot?.error);
      if (error !== null) {
        return {
          content: { kind: 'frame', caption: 'Could not load data', tabs: [], detail: error },
          fallbackTitle,
        };
      }
      const formats = columnFormatsOf(snapshot?.preferences);
      const chart = parseChartSpec(snapshot?.spec, config.chartType, formats);
      return {
        content: chart ? { kind: 'chart', chart } : { kind: 'frame', caption: 'No data', tabs: [] },
        fallbackTitle,
      };
    }
    case 'TABS_CONTAINER': {
      const tabs = (Array.isArray(config.tabs) ? config.tabs : [])
        .slice(0, 12)
        .map((t) => cleanText(typeof t === 'string' ? t : (obj(t).title ?? obj(t).name ?? obj(t).label), 100))
        .filter(Boolean);
      return { content: { kind: 'frame', caption: '', tabs }, fallbackTitle: null };
    }
    case 'AI':
      return { content: { kind: 'frame', caption: 'AI assistant', tabs: [] }, fallbackTitle: null };
    case 'CONTAINER':
    case 'PARENT': {
      const label = cleanText(config.label ?? config.name ?? '', 500) || null;
      return { content: { kind: 'frame', caption: '', tabs: [] }, fallbackTitle: label };
    }
    case 'FIELD': {
      const label = cleanText(config.label ?? config.name ?? config.member ?? config.field ?? '', 200);
      const value =
        currentValue(tables.filters, id, config, ['member', 'field'], ['value', 'text', 'defaultValue']) ??
        '–';
      return { content: { kind: 'field', label, value }, fallbackTitle: null };
    }
    case 'DIVIDER':
      return { content: { kind: 'divider' }, fallbackTitle: null };
    case 'SPACER':
      return { content: { kind: 'spacer' }, fallbackTitle: null };
    default:
      return { content: { kind: 'frame', caption: '', tabs: [] }, fallbackTitle: null };
  }
}

/** Each widget's index, id, type, title and content, in the config's order. */
export type WidgetContents = Pick<LaidOutWidget, 'index' | 'id' | 'type' | 'title' | 'content'>[];

/** The widgets with their content, independent of the breakpoint (shared by every output). */
export function widgetContents(input: RenderInput): WidgetContents {
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const tables = { filters: lookupTable(input.filters), grains: lookupTable(input.timeGrains) };
  return widgets.map((widget, index) => {
    const w = obj(widget);
    const config = obj(w.config);
    const id = typeof w.id === 'string' ? w.id : String(index);
    const type = typeof w.type === 'string' ? w.type : 'CHART';
    const { content, fallbackTitle } = contentOf(type, id, config, input, tables);
    // A spacer or a divider has no heading: it draws nothing, or only its rule.
    const untitled = content.kind === 'spacer' || content.kind === 'divider';
    const title = untitled ? null : cleanText(config.title, 500) || fallbackTitle;
    return { index, id, type, title, content };
  });
}
