import * as v from 'valibot';

/**
 * Limits of a free-form JSON value. Depth counts containers: `{}` is 1, `{"a": []}` is 2.
 * Bytes are those of its JSON text (UTF-8). Every free-form value edgeboard stores has both,
 * so nothing stored can overflow a later read, SQLite's JSON functions (depth 1000) or a
 * D1 row (1 MB).
 */
export interface JsonLimits {
  maxDepth: number;
  maxBytes: number;
}

/** The deepest any request body may nest, whatever the route (checked before validation). */
export const MAX_BODY_DEPTH = 64;

const isContainer = (x: unknown): x is object => typeof x === 'object' && x !== null;

/**
 * The first place where `value` nests deeper than `maxDepth`, as a dotted path, or null.
 * Iterative, so a value nested 100,000 levels deep is measured without a stack overflow.
 */
export function tooDeepAt(value: unknown, maxDepth: number): string | null {
  const stack: [unknown, number, string][] = [[value, isContainer(value) ? 1 : 0, '']];
  while (stack.length > 0) {
    const [node, depth, path] = stack.pop() as [unknown, number, string];
    if (!isContainer(node)) continue;
    if (depth > maxDepth) return path;
    for (const [key, child] of Object.entries(node)) {
      if (isContainer(child)) stack.push([child, depth + 1, path ? `${path}.${key}` : key]);
    }
  }
  return null;
}

/** A UTF-16 surrogate that is not half of a pair: with the `u` flag, a pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The first string (a value or a key) of `value` that is not well-formed Unicode, as a dotted
 * path ('' for `value` itself), or null. JSON's `\ud800` escapes parse to lone surrogates, which
 * storage would turn into U+FFFD: the stored text would then differ from the text sent.
 * Iterative, like `tooDeepAt`.
 */
export function illFormedTextAt(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (typeof node === 'string') {
      if (LONE_SURROGATE.test(node)) return path;
      continue;
    }
    if (!isContainer(node)) continue;
    for (const [key, child] of Object.entries(node)) {
      const at = path ? `${path}.${key}` : key;
      if (LONE_SURROGATE.test(key)) return at;
      stack.push([child, at]);
    }
  }
  return null;
}

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

/** Why `value` breaks `limits`, or null when it keeps them. */
export function jsonLimitError(value: unknown, limits: JsonLimits): string | null {
  const deepAt = tooDeepAt(value, limits.maxDepth);
  if (deepAt !== null) {
    return `Nested deeper than ${limits.maxDepth} levels${deepAt ? ` (at ${deepAt})` : ''}`;
  }
  if (utf8Length(JSON.stringify(value) ?? '') > limits.maxBytes) {
    return `Larger than ${limits.maxBytes} bytes of JSON`;
  }
  return null;
}

const describe = (limits: JsonLimits) =>
  `At most ${limits.maxDepth} levels deep and ${limits.maxBytes} bytes of JSON.`;

/** A check refusing values outside `limits`, for a valibot pipe; its message says which limit. */
export function jsonBounds<T>(limits: JsonLimits) {
  return v.check<T, v.ErrorMessage<v.CheckIssue<T>>>(
    (x) => jsonLimitError(x, limits) === null,
    (issue) => jsonLimitError(issue.input, limits) ?? 'Out of bounds',
  );
}

/** How `limits` read in the OpenAPI document (JSON Schema has no keyword for depth). */
export function jsonBoundsDoc(limits: JsonLimits) {
  return { 'x-max-depth': limits.maxDepth, 'x-max-bytes': limits.maxBytes, description: describe(limits) };
}
