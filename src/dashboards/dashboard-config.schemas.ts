import * as v from 'valibot';
import { jsonBounds, jsonBoundsDoc } from '../core/json';
import { boundedObject, obj, objectOf } from '../core/validation';
import {
  DASHBOARD_CONFIG_LIMITS,
  MAX_APP_FILES,
  MAX_WIDGETS,
  SETTINGS_LIMITS,
  WIDGET_CONFIG_LIMITS,
  WIDGET_STYLE_LIMITS,
} from './dashboards.limits';
import {
  cssBorderStyle,
  cssColor,
  cssFontFamily,
  cssFontSize,
  cssFontWeight,
  cssLengths,
  cssThemeId,
} from './theme-grammar';

/**
 * Cube's DashboardConfig: widgets, their layout, the theme and the app, as a draft is written
 * (`dashboardConfigInput`) and as it is answered (`dashboardConfigSchema`).
 */

export { MAX_WIDGETS };

export const DASHBOARD_KINDS = ['CLASSIC', 'APP'] as const;
/** Cube's widget types, plus `TABS_CONTAINER` (edgeboard's, kept for stored dashboards). */
export const WIDGET_TYPES = [
  'CHART',
  'TEXT',
  'FILTER',
  'AI',
  'TABS_CONTAINER',
  'TIME_GRAIN',
  'FIELD',
  'PARENT',
  'SPACER',
  'DIVIDER',
  'CONTAINER',
] as const;
export const BREAKPOINTS = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;

/** Grid coordinates are bounded so no stored dashboard can ask a renderer for an absurd canvas. */
export const MAX_GRID = 10_000;

/** A whole number from `min` to `max` in a JSON body. */
export const int = (min: number, max: number) =>
  v.pipe(v.number(), v.integer('Expected an integer'), v.minValue(min), v.maxValue(max));

const stringMap = objectOf(
  (x): x is string => typeof x === 'string',
  { type: 'string' },
  'an object of strings',
);

const text = (max: number) => v.nullish(v.pipe(v.string(), v.maxLength(max)));

// ---- DashboardWidget ----

export const widgetPosition = obj({
  x: int(0, MAX_GRID),
  y: int(0, MAX_GRID),
  w: int(1, MAX_GRID),
  h: int(1, MAX_GRID),
});

export type DashboardWidget = {
  id: string;
  type: (typeof WIDGET_TYPES)[number];
  position: v.InferOutput<typeof widgetPosition>;
  config?: Record<string, unknown> | null;
  style?: Record<string, unknown> | null;
  responsiveLayouts?: Partial<
    Record<(typeof BREAKPOINTS)[number], v.InferOutput<typeof widgetPosition> | null>
  > | null;
};

const widgetId = v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(255));

const widgetEntries = {
  type: v.picklist(WIDGET_TYPES),
  position: widgetPosition,
  config: v.nullish(boundedObject(WIDGET_CONFIG_LIMITS)),
  style: v.nullish(boundedObject(WIDGET_STYLE_LIMITS)),
  responsiveLayouts: v.nullish(
    obj(
      Object.fromEntries(BREAKPOINTS.map((b) => [b, v.nullish(widgetPosition)])) as {
        [K in (typeof BREAKPOINTS)[number]]: v.NullishSchema<typeof widgetPosition, undefined>;
      },
    ),
  ),
};

/** A stored (and answered) widget: it always has its id. */
export const dashboardWidget = obj({ id: widgetId, ...widgetEntries });

/** A widget as a request sends it (Cube's DashboardWidgetDraftInput): `id` may be left out. */
export const dashboardWidgetInput = obj({ id: v.nullish(widgetId), ...widgetEntries });

// ---- DashboardLayout ----

const perBreakpoint = (min: number) =>
  obj(
    Object.fromEntries(BREAKPOINTS.map((b) => [b, v.nullish(int(min, MAX_GRID))])) as {
      [K in (typeof BREAKPOINTS)[number]]: v.NullishSchema<ReturnType<typeof int>, undefined>;
    },
  );

/** `[horizontal, vertical]` in pixels, as grid layouts take them. */
const pair = v.pipe(v.array(int(0, MAX_GRID)), v.length(2, 'Expected [horizontal, vertical]'));

export const dashboardLayout = obj({
  breakpoints: v.nullish(perBreakpoint(0)),
  cols: v.nullish(perBreakpoint(1)),
  containerPadding: v.nullish(pair),
  margin: v.nullish(pair),
  rowHeight: v.nullish(int(1, MAX_GRID)),
});

// ---- DashboardTheme (request form: every leaf a nullable string) ----

const border = obj({
  color: cssColor,
  radius: cssLengths,
  style: cssBorderStyle,
  width: cssLengths,
});
const titleStyle = obj({
  color: cssColor,
  fontFamily: cssFontFamily,
  fontSize: cssFontSize,
  fontWeight: cssFontWeight,
});

/** Every leaf is nullable and held to a CSS-safe grammar (theme-grammar.ts). */
export const dashboardTheme = obj({
  backgroundColor: cssColor,
  fontFamily: cssFontFamily,
  primaryColor: cssColor,
  themeId: cssThemeId,
  dashboard: v.nullish(obj({ backgroundColor: cssColor, padding: cssLengths })),
  controls: v.nullish(
    obj({
      backgroundColor: cssColor,
      padding: cssLengths,
      border: v.nullish(border),
      title: v.nullish(titleStyle),
    }),
  ),
  widgets: v.nullish(
    obj({
      backgroundColor: cssColor,
      margin: cssLengths,
      padding: cssLengths,
      border: v.nullish(border),
      text: v.nullish(
        obj({
          codeFontFamily: cssFontFamily,
          color: cssColor,
          fontFamily: cssFontFamily,
          secondaryColor: cssColor,
        }),
      ),
      title: v.nullish(titleStyle),
    }),
  ),
});

// ---- DashboardApp ----

export const dashboardApp = obj({
  entry: text(255),
  files: v.nullish(
    v.pipe(
      stringMap,
      v.check((files) => Object.keys(files).length <= MAX_APP_FILES, `At most ${MAX_APP_FILES} files`),
      v.metadata({ maxProperties: MAX_APP_FILES }),
    ),
  ),
  html: v.nullish(v.string()),
  manifest: v.nullish(
    obj({
      dependencies: v.nullish(stringMap),
      version: v.nullish(int(0, Number.MAX_SAFE_INTEGER)),
    }),
  ),
});

// ---- DashboardConfigInput ----

type WidgetInput = v.InferOutput<typeof dashboardWidgetInput>;

/**
 * The id a widget sent without one gets on save: `<type>-<n>`, the smallest n not taken in the
 * dashboard. Derived from the widgets themselves, so the same request always yields the same ids.
 */
export function assignWidgetIds(widgets: readonly WidgetInput[]): DashboardWidget[] {
  const taken = new Set(widgets.flatMap((w) => (w.id ? [w.id] : [])));
  return widgets.map(({ id, ...rest }) => {
    if (id) return { id, ...rest };
    const stem = rest.type.toLowerCase().replace(/_/g, '-');
    let n = 1;
    while (taken.has(`${stem}-${n}`)) n++;
    const fresh = `${stem}-${n}`;
    taken.add(fresh);
    return { id: fresh, ...rest };
  });
}

const widgetList = v.pipe(
  v.array(dashboardWidgetInput),
  v.maxLength(MAX_WIDGETS, `At most ${MAX_WIDGETS} widgets`),
  // Ids name widgets in layouts and renders: a duplicate is reported at the second occurrence.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = new Set<string>();
    dataset.value.forEach((widget, index) => {
      if (!widget.id) return;
      if (seen.has(widget.id)) {
        addIssue({
          message: `Duplicate widget id "${widget.id}"`,
          path: [
            {
              type: 'array',
              origin: 'value',
              input: dataset.value,
              key: index,
              value: widget,
            },
            { type: 'object', origin: 'value', input: widget, key: 'id', value: widget.id },
          ],
        });
      }
      seen.add(widget.id);
    });
  }),
  v.transform((widgets: WidgetInput[]): DashboardWidget[] => assignWidgetIds(widgets)),
);

/** The whole config is bounded too: its parts' limits add up to more than a row should hold. */
export const dashboardConfigInput = v.pipe(
  obj({
    kind: v.nullish(v.picklist(DASHBOARD_KINDS)),
    title: text(500),
    description: text(10_000),
    settings: v.nullish(boundedObject(SETTINGS_LIMITS)),
    theme: v.nullish(dashboardTheme),
    layout: v.nullish(dashboardLayout),
    widgets: v.nullish(widgetList),
    app: v.nullish(dashboardApp),
  }),
  jsonBounds(DASHBOARD_CONFIG_LIMITS),
  v.metadata(jsonBoundsDoc(DASHBOARD_CONFIG_LIMITS)),
);

/** The response form: the same names, `theme` a free-form object. */
export const dashboardConfigSchema = v.object({
  kind: v.nullish(v.picklist(DASHBOARD_KINDS)),
  title: v.nullish(v.string()),
  description: v.nullish(v.string()),
  settings: v.nullish(boundedObject(SETTINGS_LIMITS)),
  theme: v.nullish(boundedObject(DASHBOARD_CONFIG_LIMITS)),
  layout: v.nullish(dashboardLayout),
  widgets: v.nullish(v.array(dashboardWidget)),
  app: v.nullish(dashboardApp),
});

export type DashboardConfig = v.InferOutput<typeof dashboardConfigInput>;
export type DashboardWidgetPosition = v.InferOutput<typeof widgetPosition>;
export type DashboardLayout = v.InferOutput<typeof dashboardLayout>;
export type DashboardTheme = v.InferOutput<typeof dashboardTheme>;
export type DashboardApp = v.InferOutput<typeof dashboardApp>;
