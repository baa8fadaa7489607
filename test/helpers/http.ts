import { expectDeclared } from './openapi';
import { fetchWorker } from './platform';
import { type AnswerCheck, answerChecks } from './test-state';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Auth = { bearer: string } | { apiKey: string } | { session: string } | { raw: string } | null;

function authHeader(auth: Auth): Record<string, string> {
  if (!auth) return {};
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  if ('apiKey' in auth) return { authorization: `Api-Key ${auth.apiKey}` };
  if ('session' in auth) return { authorization: `Session ${auth.session}` };
  return { authorization: auth.raw };
}

export type { AnswerCheck } from './test-state';

/**
 * Holds every later answer of this test file to `check` too, beside the served document:
 * test/cube holds answers to Cube's published schemas. test/setup.ts drops the checks after the file.
 */
export function checkEveryAnswer(check: AnswerCheck): void {
  answerChecks.push(check);
}

/**
 * A request through the whole Worker, as `fetch` takes it, whose answer must be one the OpenAPI
 * document declares (status, content type, JSON body): every path a test calls the Worker by goes
 * through here, so an undeclared answer fails the test that sees it. It runs on the test's
 * platform (test/helpers/platform.ts).
 */
export async function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const res = await fetchWorker(request);
  await expectDeclared(request.method, request.url, res);
  for (const check of answerChecks) await check(request.method, request.url, res);
  return res;
}

/**
 * One request through the whole Worker; the body is always consumed: JSON when it is JSON, bytes
 * when it is a PNG/PDF or another binary image, else text.
 */
export async function api<T = any>(
  method: string,
  path: string,
  options: { auth?: Auth; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...authHeader(options.auth ?? null), ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await workerFetch(`http://edgeboard.test${path}`, { method, headers, body });
  const type = res.headers.get('content-type') ?? '';
  // Read as text, a binary body would come out corrupted (and workerd warns that it does).
  if (/^image\/(?!svg)|^application\/pdf/.test(type)) {
    return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) as T };
  }
  const text = await res.text();
  const isJson = type.includes('json');
  return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T };
}
