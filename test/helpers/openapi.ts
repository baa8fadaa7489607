import { SELF } from 'cloudflare:test';
import { type Json, pointerResolver, resolvePointer, type Schema, schemaErrors } from './json-schema';

/**
 * Every answer a test sees is held to the OpenAPI document the Worker serves: the status is one
 * the operation declares, the content type one that status declares, and a JSON body is valid
 * against the declared schema. A request that matches no operation may only be a 404 or a 405.
 * The validator (test/helpers/json-schema.ts) covers the part of JSON Schema the document uses;
 * bounds, patterns and formats are not checked.
 */

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

/** The served document, read once per runtime (test files share it; the document is the same for all). */
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
 * its assets, the health check, the bare origin's redirect and its icon. A path added there and not here fails loudly, not silently.
 */
const UNDOCUMENTED = [/^\/healthz$/, /^\/docs(\/init\.js|\/assets\/[^/]+)?$/, /^\/$/, /^\/favicon\.ico$/];

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
  const errors = schemaErrors({ resolve: pointerResolver(document) }, schema, body);
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
  return response.$ref ? (resolvePointer(document, response.$ref) as ResponseObject) : response;
}
