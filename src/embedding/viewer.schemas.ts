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
