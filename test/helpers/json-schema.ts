/**
 * The part of JSON Schema the OpenAPI documents the tests read use (edgeboard's served document
 * and Cube's published one): type (one or a list), properties, required, additionalProperties,
 * items, enum, const, nullable, not, anyOf, oneOf, allOf, $ref. Bounds and patterns are not
 * checked; formats only where the caller names a test for them (a `oneOf` of a `date` and a
 * `date-time` string tells its options apart by format alone).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = boolean | { [keyword: string]: Json };

export interface SchemaContext {
  /** The schema a `$ref` names; throws for one the document does not hold. */
  resolve(ref: string): Schema;
  /** Format name → test of a string of that format; formats not named are not checked. */
  formats?: Record<string, (value: string) => boolean>;
}

/** Every way `value` breaks `schema`, one line each, `at` naming where (e.g. `(body).items[0]`). */
export function schemaErrors(context: SchemaContext, schema: Schema, value: Json, at = '(body)'): string[] {
  const errors: string[] = [];
  check(context, schema, value, at, errors);
  return errors;
}

/** A resolver for `#/…` JSON pointers into `document`. */
export function pointerResolver(document: unknown): (ref: string) => Schema {
  return (ref) => resolvePointer(document, ref) as Schema;
}

/** The value a `#/…` JSON pointer names in `document`; throws when it names nothing. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  let at: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    at = (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (at === undefined) throw new Error(`$ref ${ref} names nothing in the document`);
  return at;
}

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(type: string, value: Json): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      throw new Error(`unknown JSON Schema type "${type}"`);
  }
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

function check(context: SchemaContext, schema: Schema, value: Json, at: string, errors: string[]): void {
  if (schema === true) return;
  if (schema === false) {
    errors.push(`${at}: not allowed`);
    return;
  }
  if (typeof schema.$ref === 'string') check(context, context.resolve(schema.$ref), value, at, errors);
  if (value === null && schema.nullable === true) return;
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    if (!types.some((t) => hasType(t, value))) {
      errors.push(`${at}: expected ${types.join(' or ')}, got ${JSON.stringify(value)?.slice(0, 80)}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(option, value))) {
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && !same(schema.const as Json, value)) {
    errors.push(`${at}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
  }
  const format = typeof schema.format === 'string' ? context.formats?.[schema.format] : undefined;
  if (format && typeof value === 'string' && !format(value)) {
    errors.push(`${at}: ${JSON.stringify(value).slice(0, 80)} is not a ${schema.format}`);
  }
  if (schema.not !== undefined && schemaErrors(context, schema.not as Schema, value, at).length === 0) {
    errors.push(`${at}: matches the schema under "not"`);
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) check(context, part as Schema, value, at, errors);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const results = options.map((option) => schemaErrors(context, option as Schema, value, at));
    const passing = results.filter((r) => r.length === 0).length;
    if (keyword === 'oneOf' ? passing !== 1 : passing === 0) {
      // The closest option (of the value's type, with the fewest errors) says the most about what is wrong.
      const score = (r: string[]) => (r.some((e) => e.startsWith(`${at}: expected`)) ? 1e9 : r.length);
      const closest = results.reduce((a, b) => (score(b) < score(a) ? b : a));
      errors.push(
        passing > 1
          ? `${at}: ${JSON.stringify(value)?.slice(0, 80)} matches ${passing} options of oneOf`
          : `${at}: matches no option of ${keyword}; the closest: ${closest.join('; ')}`,
      );
    }
  }
  if (isObject(value)) {
    const properties = (isObject(schema.properties ?? null) ? schema.properties : {}) as Record<
      string,
      Schema
    >;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in value)) errors.push(`${at}: missing required property "${key}"`);
    }
    for (const [key, item] of Object.entries(value)) {
      const own = properties[key];
      if (own !== undefined) check(context, own, item, `${at}.${key}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}: property "${key}" is not declared`);
      else if (isObject(schema.additionalProperties ?? null)) {
        check(context, schema.additionalProperties as Schema, item, `${at}.${key}`, errors);
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) {
    for (const [index, item] of value.entries()) {
      check(context, schema.items as Schema, item, `${at}[${index}]`, errors);
    }
  }
}
