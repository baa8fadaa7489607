import * as v from 'valibot';
import { controlParams, jsonParam } from '../dashboards/controls.schemas';
import { MAX_FILTER_SEARCH } from './embed-dashboards.service';

const widgetId = v.pipe(v.string(), v.minLength(1), v.maxLength(255));

/** Most widgets one control change refreshes (a dashboard shows at most this many live charts). */
const MAX_REFRESHED_WIDGETS = 100;

/**
 * The viewer's content request: the controls' values (`filters`, `timeGrains`, JSON like the
 * embed load's) and, for a control change, the CHART widgets to run again (`widgets`, a JSON
 * list of widget ids); without it the whole dashboard is answered.
 */
export const viewerContentQuery = v.object({
  ...controlParams,
  widgets: v.optional(
    jsonParam(v.pipe(v.array(widgetId), v.maxLength(MAX_REFRESHED_WIDGETS, 'Too many widgets'))),
  ),
});

/** A FILTER widget's values: which widget, and the text they must contain. */
export const filterValuesQuery = v.object({
  widgetId,
  search: v.optional(v.pipe(v.string(), v.maxLength(MAX_FILTER_SEARCH))),
});

/** A value a filter holds or offers. */
const scalar = v.nullable(v.union([v.string(), v.number(), v.boolean()]));

/** One FILTER or TIME_GRAIN widget as the viewer's script makes it a form control (`ViewerControl`). */
const viewerControlSchema = v.object({
  widgetId: v.string(),
  kind: v.picklist(['filter', 'timeGrain']),
  member: v.string(),
  label: v.string(),
  /** A filter's current values (empty: all). */
  values: v.array(scalar),
  /** A time grain's current grain. */
  grain: v.nullable(v.string()),
  /** A session's locked filter: shown, fixed. */
  locked: v.boolean(),
  /** The CHART widgets its value can change (none on a partial load). */
  targets: v.array(v.string()),
});

/** The controls of a load: the widgets, and every filter and grain value it applied (`ViewerControls`). */
const viewerControlsSchema = v.object({
  widgets: v.array(viewerControlSchema),
  filters: v.array(
    v.object({ member: v.string(), values: v.array(scalar), locked: v.optional(v.boolean()) }),
  ),
  timeGrains: v.array(v.object({ member: v.string(), grain: v.string() })),
});

/**
 * The content endpoint's answer (`ViewerContent`, the shape the page's script reads): the
 * dashboard's markup and styles, when the session expires, the controls, and with `?widgets=`
 * the widgets whose sections `html` carries fresh.
 */
export const viewerContentSchema = v.object({
  title: v.string(),
  html: v.string(),
  css: v.string(),
  expiresInMs: v.number(),
  controls: viewerControlsSchema,
  widgets: v.nullable(v.array(v.string())),
  /** Whether the session's user may write dashboard comments (ephemeral and internal users only read them). */
  canComment: v.boolean(),
});

/** The values a FILTER widget offers: its member, the values (ascending), and whether there are more. */
export const filterValuesSchema = v.object({
  member: v.string(),
  values: v.array(scalar),
  truncated: v.boolean(),
});
