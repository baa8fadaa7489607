import { SELF } from 'cloudflare:test';

/**
 * Every answer a test sees is held to the OpenAPI document the Worker serves: the status is one
 * the operation declares, the content type one that status declares, and a JSON body is valid
 * against the declared schema. A request that matches no operation may only be a 404 or a 405.
 * The validator covers the part of JSON Schema the document uses (type, properties, required,
 * additionalProperties, items, enum, const, nullable, anyOf, oneOf, allOf, $ref); bounds,
 * patterns and formats are not checked.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = boolean | { [keyword: string]: Json };
interface MediaType {
  schema?: Schema;
}
interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
  $ref?: string;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Json>>;
}
interface Route {
  method: string;
  pattern: RegExp;
  /** Literal segments first: `/workbooks/by-slug/{slug}` wins over `/workbooks/{id}`. */
  literals: number;
  operation: Operation;
}

const DOCUMENT_PATH = '/api/v1/openapi.json';

let routes: Promise<{ document: Document; routes: Route[] }> | undefined;

/** The served document, read once per test file (each file has its own module instance). */
function served() {
  routes ??= (async () => {
    const res = await SELF.fetch(`http://edgeboard.test${DOCUMENT_PATH}`);
    if (res.status !== 200) throw new Error(`GET ${DOCUMENT_PATH} answered ${res.status}`);
    const document = (await res.json()) as Document;
    const list: Route[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      const segments = path.split('/');
      const pattern = new RegExp(
        `^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : escapeRegExp(s))).join('/')}$`,
      );
      const literals = segments.filter((s) => !s.startsWith('{')).length;
      for (const [method, operation] of Object.entries(item)) {
        list.push({ method: method.toUpperCase(), pattern, literals, operation });
      }
    }
    list.sort((a, b) => b.literals - a.literals);
    return { document, routes: list };
  })();
  return routes;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Paths `createApp` serves outside the document (its `exclude` list): the documentation page and
 * its assets, and the health check. A path added there and not here fails loudly, not silently.
 */
const UNDOCUMENTED = [/^\/healthz$/, /^\/docs(\/init\.js|\/assets\/[^/]+)?$/];

/**
 * Throws, failing the test, when `res` is not an answer the document declares for `method` and
 * `url`. Reads a clone, so the caller still reads the body.
 */
export async function expectDeclared(method: string, url: string, res: Response): Promise<void> {
  const { pathname } = new URL(url, 'http://edgeboard.test');
  if (pathname === DOCUMENT_PATH || UNDOCUMENTED.some((p) => p.test(pathname))) return;
  const { document, routes: list } = await served();
  const upper = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const route = list.find((r) => r.method === upper && r.pattern.test(pathname));
  const where = `${method.toUpperCase()} ${pathname}`;
  if (!route) {
    await res.clone().arrayBuffer();
    if (res.status === 404 || res.status === 405) return;
    throw new Error(`${where} answered ${res.status}, but no operation of the OpenAPI document matches it`);
  }
  const operation = `${where} (${route.operation.operationId})`;
  const declared = route.operation.responses;
  const found = declared[String(res.status)] ?? declared[`${String(res.status)[0]}XX`] ?? declared.default;
  const bytes = new Uint8Array(await res.clone().arrayBuffer());
  if (!found) {
    throw new Error(
      `${operation} answered ${res.status}, which the OpenAPI document does not declare ` +
        `(it declares ${Object.keys(declared).join(', ')}): ${preview(bytes)}`,
    );
  }
  const response = resolveResponse(document, found);
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const content = response.content ?? {};
  if (bytes.byteLength === 0 && !contentType) return;
  const mediaType = Object.keys(content).find((type) => mediaMatches(type, contentType));
  if (mediaType === undefined) {
    throw new Error(
      `${operation} answered ${res.status} as "${contentType}", but the document declares ` +
        `${Object.keys(content).join(', ') || 'no body'} for it`,
    );
  }
  const schema = content[mediaType]?.schema;
  if (schema === undefined || !/[/+]json$/.test(contentType)) return;
  const body = JSON.parse(new TextDecoder().decode(bytes)) as Json;
  const errors: string[] = [];
  check(document, schema, body, '(body)', errors);
  if (errors.length > 0) {
    throw new Error(
      `${operation} answered ${res.status} with a body the document's schema refuses:\n  ` +
        `${errors.slice(0, 10).join('\n  ')}\nbody: ${preview(bytes)}`,
    );
  }
}

function preview(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.slice(0, 600));
  return bytes.byteLength > 600 ? `${text}…` : text;
}

function mediaMatches(declared: string, actual: string): boolean {
  if (declared === actual || declared === '*/*') return true;
  return declared.endsWith('/*') && actual.startsWith(declared.slice(0, -1));
}

function resolveResponse(document: Document, response: ResponseObject): ResponseObject {
  return response.$ref ? (pointer(document, response.$ref) as ResponseObject) : response;
}

function pointer(document: Document, ref: string): unknown {
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

/** Appends to `errors` one line per way `value` breaks `schema`. */
function check(document: Document, schema: Schema, value: Json, at: string, errors: string[]): void {
  if (schema === true) return;
  if (schema === false) {
    errors.push(`${at}: not allowed`);
    return;
  }
  if (typeof schema.$ref === 'string')
    check(document, pointer(document, schema.$ref) as Schema, value, at, errors);
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
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) check(document, part as Schema, value, at, errors);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const results = options.map((option) => {
      const found: string[] = [];
      check(document, option as Schema, value, at, found);
      return found;
    });
    const passing = results.filter((r) => r.length === 0).length;
    if (keyword === 'oneOf' ? passing !== 1 : passing === 0) {
      // The closest option (of the value's type, with the fewest errors) says the most about what is wrong.
      const score = (r: string[]) => (r.some((e) => e.startsWith(`${at}: expected`)) ? 1e9 : r.length);
      const closest = results.reduce((a, b) => (score(b) < score(a) ? b : a));
      errors.push(
        passing > 1
          ? `${at}: matches ${passing} options of oneOf`
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
      if (own !== undefined) check(document, own, item, `${at}.${key}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}: property "${key}" is not declared`);
      else if (isObject(schema.additionalProperties ?? null)) {
        check(document, schema.additionalProperties as Schema, item, `${at}.${key}`, errors);
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) {
    for (const [index, item] of value.entries()) {
      check(document, schema.items as Schema, item, `${at}[${index}]`, errors);
    }
  }
}
