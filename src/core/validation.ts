import type { Context, Env, MiddlewareHandler } from 'hono';
import { uniqueSymbol } from 'hono-openapi';
import * as v from 'valibot';
import { ApiError, type ErrorDetail } from './errors';
import {
  illFormedTextAt,
  type JsonLimits,
  jsonBounds,
  jsonBoundsDoc,
  MAX_BODY_DEPTH,
  tooDeepAt,
} from './json';
import { documented } from './openapi';
import { strictUtf8 } from './text';

type Target = 'json' | 'query' | 'param';

function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => String(item.key)).join('.');
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  // valibot's strictObject reports an unknown key as "Invalid key: Expected never but received …";
  // a field refused with a message of its own (`v.never('…')`) keeps that message.
  if (issue.kind === 'schema' && issue.expected === 'never' && issue.message.startsWith('Invalid ')) {
    return 'Unknown field';
  }
  return issue.message;
}

/** A union's issues one level down: its options' issues, their paths prefixed with its own. */
function optionIssues(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown>[] {
  return (issue.issues ?? [])
    .filter((inner) => (inner.path?.length ?? 0) > 0)
    .map(
      (inner) => ({ ...inner, path: [...(issue.path ?? []), ...(inner.path ?? [])] }) as v.BaseIssue<unknown>,
    );
}

/**
 * Of a union's option issues, those inside a field of an element of the list it was given (a
 * list of queries, an order of [member, direction] pairs): an option that reads the list as an
 * object (a record) fails at the element itself, which says nothing of what is wrong in it.
 */
function inElementFields(issue: v.BaseIssue<unknown>, options: v.BaseIssue<unknown>[]) {
  if (!Array.isArray(issue.input)) return [];
  const depth = issue.path?.length ?? 0;
  return options.filter((inner) => (inner.path?.length ?? 0) - depth >= 2);
}

/**
 * The issues a union failed with, when one of its options matched the value's type and failed
 * deeper inside it (an object whose `timezone` is a number): those deeper issues name the field,
 * where the union's own issue only says the value is none of its options. Given a list, those
 * inside its elements' fields come first.
 */
function deepestIssues(issue: v.BaseIssue<unknown>): readonly v.BaseIssue<unknown>[] {
  const options = optionIssues(issue);
  const inFields = inElementFields(issue, options);
  const chosen = inFields.length > 0 ? inFields : options;
  return chosen.length > 0 ? chosen.flatMap(deepestIssues) : [issue];
}

const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Valibot issues as the error envelope's `details`, one per offending field. `within` names the
 * value checked (a parameter holding JSON): paths read `within.<field>`, and `within` itself at
 * its root; without it the root is `(body)`.
 */
export function toDetails(issues: readonly v.BaseIssue<unknown>[], within?: string): ErrorDetail[] {
  const pathOf = (issue: v.BaseIssue<unknown>) => {
    const path = issuePath(issue);
    if (!within) return path || '(body)';
    return path ? `${within}.${path}` : within;
  };
  return (
    issues
      // A union given an object is replaced by its deeper issues (the object's field that
      // failed), and one given a list by those inside a field of its elements, if that is where
      // it failed (a list of queries); one given a value or a list of values (a parameter that
      // is one value or a list of them) keeps naming itself.
      .flatMap((issue) => {
        if (issue.type !== 'union') return [issue];
        if (isRecord(issue.input)) return deepestIssues(issue);
        const inFields = inElementFields(issue, optionIssues(issue));
        return inFields.length > 0 ? inFields.flatMap(deepestIssues) : [issue];
      })
      .map((issue) => ({ path: pathOf(issue), message: issueMessage(issue) }))
  );
}

export function validationError(issues: readonly v.BaseIssue<unknown>[], where: string): ApiError {
  const details = toDetails(issues);
  const first = details[0];
  const message = first ? `Invalid ${where}: ${first.path} ${first.message}` : `Invalid ${where}`;
  return new ApiError('VALIDATION_FAILED', message, details);
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * A 400 when parsed JSON holds text with a lone surrogate, naming its path: under `root` (the
 * parameter the JSON came in), else from the body's top.
 */
export function requireWellFormedText(value: unknown, where: string, root?: string): void {
  const at = illFormedTextAt(value);
  if (at === null) return;
  throw new ApiError('VALIDATION_FAILED', `${where} holds text that is not well-formed Unicode`, [
    {
      path: root ? [root, at].filter(Boolean).join('.') : at || '(body)',
      message: 'Text with a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)',
    },
  ]);
}

/**
 * A 415 for a body sent compressed (RFC 7694): read as it came, it would be answered as malformed
 * JSON or text that is not UTF-8.
 */
export function refuseCompressed(c: Context): void {
  const coding = c.req.header('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Request bodies are read uncompressed: Content-Encoding ${coding} is not supported`,
    );
  }
}

/**
 * The request body as JSON. An empty body is `undefined` (so optional bodies work with or
 * without a Content-Type); a non-empty body must be JSON and declared as such.
 */
async function readJsonBody(c: Context): Promise<unknown> {
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength === 0) return undefined;
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (!JSON_TYPE.test(mediaType)) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Request bodies must be JSON (Content-Type: application/json)',
    );
  }
  refuseCompressed(c);
  const text = strictUtf8(bytes);
  if (text === null) throw new ApiError('INVALID_JSON', 'Request body is not valid UTF-8');
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_JSON', 'Malformed JSON in request body');
  }
  const deepAt = tooDeepAt(body, MAX_BODY_DEPTH);
  if (deepAt !== null) {
    throw new ApiError('VALIDATION_FAILED', `Request body nests deeper than ${MAX_BODY_DEPTH} levels`, [
      { path: deepAt || '(body)', message: `Nested deeper than ${MAX_BODY_DEPTH} levels` },
    ]);
  }
  requireWellFormedText(body, 'Request body');
  return body;
}

function readQuery(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

const WHERE: Record<Target, string> = {
  json: 'request body',
  query: 'query parameter',
  param: 'path parameter',
};

/**
 * Validates one part of the request with a valibot schema and records the schema for the
 * OpenAPI document (hono-openapi reads the marker). Failures become a 400 whose `details`
 * name every offending field.
 */
export function validate<
  T extends Target,
  S extends v.GenericSchema,
  E extends Env = Env,
  P extends string = string,
>(
  target: T,
  schema: S,
): MiddlewareHandler<E, P, { in: { [K in T]: v.InferInput<S> }; out: { [K in T]: v.InferOutput<S> } }> {
  const middleware: MiddlewareHandler = async (c, next) => {
    const raw = target === 'json' ? await readJsonBody(c) : target === 'query' ? readQuery(c) : c.req.param();
    const result = v.safeParse(schema, raw);
    if (!result.success) throw validationError(result.issues, WHERE[target]);
    c.req.addValidatedData(target, result.output as object);
    await next();
  };
  return Object.assign(middleware, {
    [uniqueSymbol]: { target, ...documented(schema as v.GenericSchema) },
  }) as never;
}

// ---- Reusable field schemas ----

/** A positive integer id in a path or query string. */
export const idString = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,14}$/, 'Expected a positive integer id'),
  v.transform(Number),
);

export const idParams = v.object({ id: idString });

/** A whole number from `min` to `max` in a query string; `tooLarge` says what is wrong past `max`. */
export const integerString = (min: number, max: number, tooLarge?: string) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, 'Expected an integer'),
    v.transform(Number),
    v.minValue(min),
    v.maxValue(max, tooLarge),
  );

/** A positive integer id in a JSON body. */
export const idNumber = v.pipe(v.number(), v.integer('Expected an integer'), v.minValue(1), v.safeInteger());

/** A short free text Cube accepts (a locale, a branch name), bounded; empty allowed. */
export const shortText = (max: number) => v.pipe(v.string(), v.maxLength(max));

export const nonEmptyString = (max: number) =>
  v.pipe(v.string(), v.trim(), v.minLength(1, 'Must not be empty'), v.maxLength(max));

export const httpUrl = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.url('Expected an absolute URL'),
  v.check((s) => /^https?:\/\//i.test(s), 'Expected an http:// or https:// URL'),
);

// ---- Object schemas that refuse arrays ----

/**
 * `schema` (an object schema) refusing arrays: valibot's object schemas only check
 * `typeof value === 'object'`, so `[]` would pass as `{}`. Everything else, the OpenAPI
 * rendering included, is the wrapped schema's.
 */
export function noArray<S extends v.GenericSchema>(schema: S): S {
  return {
    ...schema,
    '~run'(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      if (Array.isArray(dataset.value)) {
        v._addIssue(schema as never, 'type', dataset, config, { expected: 'Object', received: 'Array' });
        return dataset as unknown as v.OutputDataset<v.InferOutput<S>, v.BaseIssue<unknown>>;
      }
      return schema['~run'](dataset, config);
    },
  };
}

/** A strict object (unknown keys are a 400) that is never an array. */
export const obj = <E extends v.ObjectEntries>(entries: E) => noArray(v.strictObject(entries));

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A JSON object (never an array, which valibot's `record` would turn into one) whose values
 * pass `isValue`; `valueJson` documents them in the OpenAPI document.
 */
export const objectOf = <T>(
  isValue: (x: unknown) => x is T,
  valueJson: Record<string, unknown>,
  what: string,
) =>
  v.pipe(
    v.custom<Record<string, T>>(
      (x) => isPlainObject(x) && Object.values(x).every(isValue),
      `Expected ${what}`,
    ),
    v.metadata({ type: 'object', additionalProperties: valueJson }),
  );

/** A free-form JSON object (not an array, not a scalar) within `limits` of depth and size. */
export const boundedObject = (limits: JsonLimits) =>
  v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'Expected an object'),
    jsonBounds<Record<string, unknown>>(limits),
    v.metadata({ type: 'object', additionalProperties: {}, ...jsonBoundsDoc(limits) }),
  );

/** An input as Cube means it: a null field is one not sent. */
export type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> };

/** Drops the null fields of an input (Cube's null: not sent). */
export function withoutNulls<T extends object>(input: T): WithoutNulls<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null)) as WithoutNulls<T>;
}

/** The answer of every delete. */
export const deletedSchema = v.object({ id: v.number(), deleted: v.literal(true) });
