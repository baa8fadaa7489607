/// <reference types="vite/client" />
import { parse } from 'yaml';
import { checkEveryAnswer } from '../helpers/http';
import {
  type Json,
  pointerResolver,
  type Schema,
  type SchemaContext,
  schemaErrors,
} from '../helpers/json-schema';
// Cube's published OpenAPI document, vendored (its header names the source and licence). Vite's
// `?raw` bundles it as text, so it is read inside workerd without a network or a file system.
import cubeYaml from './cube-api.yaml?raw';

/**
 * Cube Cloud's Platform API as Cube publishes it, and answers held to it: given an operation (by
 * Cube's operationId, or method and path) and an answer (status and JSON body), the body must be
 * valid against the response schema Cube declares for that status. `holdAnswersToCube()` does it
 * for every answer a test file sees.
 */

interface CubeResponse {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface CubeOperationObject {
  operationId: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, CubeResponse>;
}
interface CubeDocument {
  openapi: string;
  tags: { name: string }[];
  paths: Record<string, Record<string, CubeOperationObject>>;
  components: { schemas: Record<string, Json> };
}

/** One operation of Cube's document. */
export interface CubeOperation {
  operationId: string;
  /** Upper case: `GET`, `POST`, … */
  method: string;
  /** Cube's path template, e.g. `/api/v1/deployments/{deploymentId}/folders`. */
  path: string;
  /** Cube's first tag: the group the operation belongs to. */
  tag: string;
  summary: string;
  responses: Record<string, CubeResponse>;
}

/** An answer as test/helpers/http.ts's `api` returns it (only `status` and `body` are read). */
export interface Answer {
  status: number;
  body: unknown;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export const cubeDocument = parse(cubeYaml) as CubeDocument;

/** Every operation of Cube's document, in the document's order. */
export const cubeOperations: CubeOperation[] = Object.entries(cubeDocument.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, op]) => ({
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      tag: op.tags?.[0] ?? '',
      summary: op.summary ?? '',
      responses: op.responses,
    })),
);

interface Route {
  operation: CubeOperation;
  pattern: RegExp;
  /** Literal segments first: `/workbooks/by-slug/{slug}` wins over `/workbooks/{workbookId}`. */
  literals: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const routes: Route[] = cubeOperations
  .map((operation) => {
    const segments = operation.path.split('/');
    const pattern = new RegExp(
      `^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : escapeRegExp(s))).join('/')}$`,
    );
    return { operation, pattern, literals: segments.filter((s) => !s.startsWith('{')).length };
  })
  .sort((a, b) => b.literals - a.literals);

/** The Cube operation a request reaches, by method and concrete path (or Cube's template); none when Cube has none. */
export function findCubeOperation(method: string, path: string): CubeOperation | undefined {
  const upper = method.toUpperCase();
  const pathname = path.split('?')[0] ?? path;
  return (
    cubeOperations.find((op) => op.method === upper && op.path === pathname) ??
    routes.find((r) => r.operation.method === upper && r.pattern.test(pathname))?.operation
  );
}

/** A Cube operation by its operationId, or by method and path; throws when Cube's document has none. */
export function cubeOperation(ref: string | { method: string; path: string }): CubeOperation {
  const found =
    typeof ref === 'string'
      ? cubeOperations.find((op) => op.operationId === ref)
      : findCubeOperation(ref.method, ref.path);
  if (!found) throw new Error(`Cube's document has no operation ${JSON.stringify(ref)}`);
  return found;
}

// Cube's dates are `oneOf` a `date` and a `date-time` string: only the format tells them apart.
const context: SchemaContext = {
  resolve: pointerResolver(cubeDocument),
  formats: {
    date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value),
    'date-time': (value) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
  },
};

/**
 * Every way `answer` departs from what Cube declares for `operation`: a status Cube does not
 * declare, or a JSON body its schema refuses. Empty when the answer is one Cube's clients expect.
 */
export function cubeAnswerErrors(
  ref: string | { method: string; path: string } | CubeOperation,
  answer: Answer,
): string[] {
  const operation = typeof ref === 'object' && 'operationId' in ref ? ref : cubeOperation(ref);
  const declared = operation.responses[String(answer.status)] ?? operation.responses.default;
  if (!declared) {
    return [
      `${answer.status}: Cube declares only ${Object.keys(operation.responses).join(', ')} for ${operation.operationId}`,
    ];
  }
  const schema = declared.content?.['application/json']?.schema;
  if (schema === undefined) return [];
  return schemaErrors(context, schema, answer.body as Json);
}

/** Throws, failing the test, when `answer` is not one Cube's document declares for the operation. */
export function expectCubeAnswer(ref: string | { method: string; path: string }, answer: Answer): void {
  const operation = cubeOperation(ref);
  const errors = cubeAnswerErrors(operation, answer);
  if (errors.length > 0) {
    throw new Error(
      `${operation.method} ${operation.path} (${operation.operationId}) answered ${answer.status} with what ` +
        `Cube's schema refuses:\n  ${errors.slice(0, 10).join('\n  ')}\nbody: ` +
        `${JSON.stringify(answer.body)?.slice(0, 600)}`,
    );
  }
}

/**
 * Holds every later 2xx answer of this test file to Cube's document too: a request that reaches
 * one of Cube's operations (by method and path) must answer a status Cube declares for it, with a
 * JSON body Cube's response schema takes. Errors are edgeboard's own envelope (Cube declares none)
 * and requests Cube has no operation for are not checked.
 */
export function holdAnswersToCube(): void {
  checkEveryAnswer(async (method, url, res) => {
    if (res.status < 200 || res.status > 299) return;
    const operation = findCubeOperation(method, new URL(url).pathname);
    if (!operation) return;
    const isJson = /[/+]json\b/.test(res.headers.get('content-type') ?? '');
    const text = isJson ? await res.clone().text() : '';
    expectCubeAnswer(operation, { status: res.status, body: text ? JSON.parse(text) : undefined });
  });
}
