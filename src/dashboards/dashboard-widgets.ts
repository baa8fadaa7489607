/**
 * A stored dashboard config's widgets, read defensively: the one reading every domain shares
 * (controls, live reports, the viewer, notifications), so a widget means the same everywhere.
 * The renderer (`src/render/`) reads them the same way for drawing.
 */

type Obj = Record<string, unknown>;

const objOf = (value: unknown): Obj =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};

export interface WidgetView {
  /** The widget's id; its index in the list for one saved without (older drafts). */
  widgetId: string;
  /** `CHART` when the widget names none, as the renderer draws it. */
  type: string;
  config: Obj;
}

export function widgetsOf(config: unknown): WidgetView[] {
  const widgets = objOf(config).widgets;
  if (!Array.isArray(widgets)) return [];
  return widgets.map((widget, index) => {
    const w = objOf(widget);
    return {
      widgetId: typeof w.id === 'string' ? w.id : String(index),
      type: typeof w.type === 'string' ? w.type : 'CHART',
      config: objOf(w.config),
    };
  });
}

/** The report (or report snapshot) ids a widget names: `reportId`, `reportSnapshotId`, `snapshotId`. */
export function reportRefs(widget: WidgetView): number[] {
  const c = widget.config;
  return [c.reportId, c.reportSnapshotId, c.snapshotId]
    .map((ref) => (typeof ref === 'number' ? ref : typeof ref === 'string' && ref !== '' ? Number(ref) : NaN))
    .filter((n) => Number.isInteger(n));
}

/** The label a widget shows for itself: `config.label`, else `config.title` (trimmed), else null. */
export function widgetLabel(widget: WidgetView): string | null {
  const c = widget.config;
  const label = [c.label, c.title].find((x): x is string => typeof x === 'string' && x.trim() !== '');
  return label ? label.trim().slice(0, 200) : null;
}

/** JSON text that holds an object (a report's `jsonQuery` or chart settings), else null. */
export function parseJsonObject(text: string | null | undefined): Obj | null {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Obj) : null;
  } catch {
    return null;
  }
}
