import * as v from 'valibot';
import { illFormedTextAt } from '../core/json';
import { obj } from '../core/validation';
import { VALUELESS_OPERATORS as VALUELESS } from '../semantic/query/control-operators';
import { CONTROL_OPERATORS, TIME_GRAINS } from '../semantic/query/controls';

/** Most filters or time grains one load or session may set, and most values one filter takes. */
export const MAX_CONTROL_FILTERS = 50;
export const MAX_FILTER_VALUES = 100;
const MAX_MEMBER = 255;
const MAX_VALUE = 1_000;
/** Bytes of a `filters` / `timeGrains` query parameter (JSON text). */
const MAX_CONTROLS_PARAM = 16 * 1024;

const scalar = v.union([
  v.pipe(v.string(), v.maxLength(MAX_VALUE)),
  v.pipe(v.number(), v.finite()),
  v.boolean(),
  v.null(),
]);
const name = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MEMBER));

/** The values a filter entry sets: `values`, else its one `value`. */
const sentValues = (f: { values?: unknown[]; value?: unknown }) =>
  f.values ?? (f.value === undefined ? [] : [f.value]);

/**
 * One filter value a caller sets: on a FILTER widget (by `widgetId`) or a member (`member`, a
 * `Cube.dimension`); `values` (or one `value`) replace the control's; an empty list clears it.
 */
export const controlFilterInput = v.pipe(
  obj({
    widgetId: v.optional(name),
    member: v.optional(name),
    operator: v.optional(v.picklist(CONTROL_OPERATORS)),
    values: v.optional(v.pipe(v.array(scalar), v.maxLength(MAX_FILTER_VALUES))),
    value: v.optional(scalar),
    startInclusive: v.optional(v.boolean()),
    endInclusive: v.optional(v.boolean()),
  }),
  v.check((f) => f.widgetId !== undefined || f.member !== undefined, 'Name a widgetId or a member'),
  v.forward(
    v.check(
      (f) => f.operator !== 'between' || [0, 2].includes(sentValues(f).length),
      '`between` takes [start, end] (or nothing, to clear the control)',
    ),
    ['values'],
  ),
  v.forward(
    v.check(
      (f) => !f.operator || !VALUELESS.has(f.operator) || sentValues(f).length === 0,
      'No value with this operator',
    ),
    ['values'],
  ),
);

/** One time grain a caller sets, on a TIME_GRAIN widget (`widgetId`) or a time dimension (`member`). */
export const controlGrainInput = v.pipe(
  obj({ widgetId: v.optional(name), member: v.optional(name), grain: v.picklist(TIME_GRAINS) }),
  v.check((g) => g.widgetId !== undefined || g.member !== undefined, 'Name a widgetId or a member'),
);

export const controlFiltersInput = v.pipe(
  v.array(controlFilterInput),
  v.maxLength(MAX_CONTROL_FILTERS, `At most ${MAX_CONTROL_FILTERS} filters`),
);
export const controlGrainsInput = v.pipe(
  v.array(controlGrainInput),
  v.maxLength(MAX_CONTROL_FILTERS, `At most ${MAX_CONTROL_FILTERS} time grains`),
);

/** A query parameter holding JSON checked by `schema` (`?filters=[{"member":…,"values":[…]}]`). */
export const jsonParam = <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.string(),
    v.maxLength(MAX_CONTROLS_PARAM),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(dataset.value);
      } catch {
        addIssue({ message: 'Expected JSON' });
        return NEVER;
      }
      // Escapes in the JSON may spell a lone surrogate, which a query would bind as U+FFFD.
      const at = illFormedTextAt(parsed);
      if (at !== null) {
        addIssue({
          message: `Text${at ? ` at ${at}` : ''} is not well-formed Unicode (a lone UTF-16 surrogate)`,
        });
        return NEVER;
      }
      return parsed;
    }),
    schema,
  );

/** `filters` and `timeGrains` as query parameters (JSON), for the loads and renders that take them. */
export const controlParams = {
  filters: v.optional(jsonParam(controlFiltersInput)),
  timeGrains: v.optional(jsonParam(controlGrainsInput)),
};

const scalarOut = v.union([v.string(), v.number(), v.boolean(), v.null()]);

/** The controls' values a load applied, as answered (the SDK's `getFilters` reads the same). */
export const dashboardControlsSchema = v.object({
  filters: v.array(
    v.object({
      widgetId: v.optional(v.string()),
      member: v.string(),
      operator: v.picklist(CONTROL_OPERATORS),
      values: v.array(scalarOut),
      startInclusive: v.optional(v.nullable(v.boolean())),
      endInclusive: v.optional(v.nullable(v.boolean())),
      locked: v.optional(v.boolean()),
    }),
  ),
  timeGrains: v.array(
    v.object({ widgetId: v.optional(v.string()), member: v.string(), grain: v.picklist(TIME_GRAINS) }),
  ),
});
