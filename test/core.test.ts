import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { ApiError, isNotFound, notFound, toApiError } from '../src/core/errors';
import { expectError, OPERATOR } from './helpers/harness';
import { api, workerFetch } from './helpers/http';

describe('the app core', () => {
  it('answers /healthz without credentials', async () => {
    const res = await api('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9_-]{8,}$/);
  });

  it('keeps a well-formed request id given by the client', async () => {
    const res = await api('GET', '/healthz', { headers: { 'x-request-id': 'client-trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('client-trace-123');
  });

  it('answers unknown routes with a JSON 404 in the envelope', async () => {
    const res = await api('GET', '/api/v1/nothing-here');
    expectError(res, 404, 'NOT_FOUND');
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'INVALID_JSON');
  });

  it('rejects a body that is not UTF-8 with 400, rather than storing U+FFFD', async () => {
    const accounts = () =>
      env.CONTROL_DB.prepare('SELECT count(*) AS n FROM accounts').first<{ n: number }>();
    const before = await accounts();
    const bytes = new Uint8Array([...new TextEncoder().encode('{"name":"Bad byte '), 0xff, 0x22, 0x7d]);
    const res = await workerFetch('http://localhost/admin/v1/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR.bearer}`, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'INVALID_JSON',
      error: 'Request body is not valid UTF-8',
    });
    expect(await accounts()).toEqual(before);
  });

  it('rejects a body that is not JSON with 415', async () => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a compressed body with 415 naming its Content-Encoding, not as malformed JSON', async () => {
    const gzip = new Response(
      new Blob([JSON.stringify({ name: 'Zipped' })]).stream().pipeThrough(new CompressionStream('gzip')),
    );
    const res = await workerFetch('http://localhost/admin/v1/accounts', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OPERATOR.bearer}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: await gzip.arrayBuffer(),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      error: expect.stringContaining('gzip'),
    });
  });

  it('rejects bodies over 1 MiB with 413', async () => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      body: { name: 'x'.repeat(1024 * 1024 + 10) },
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('names every offending field, including unknown ones', async () => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      body: { name: '', plan: 'gold', surprise: true },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    const paths = res.body.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['name', 'plan', 'surprise']);
    expect(res.body.details.find((d: { path: string }) => d.path === 'surprise').message).toBe(
      'Unknown field',
    );
  });

  it('serves an OpenAPI 3.1 document with every route, scheme and error response', async () => {
    const res = await api('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(
      ['apiKeyAuth', 'bearerAuth', 'cubeApiToken', 'operatorAuth', 'sessionAuth', 'sessionQuery'].sort(),
    );
    const create = res.body.paths['/build/api/v1/deployments'].post;
    // `cubecloud` (Cube's name of hosted) is accepted too.
    expect(create.requestBody.content['application/json'].schema.properties.cloudProvider.enum).toEqual([
      'hosted',
      'aws',
      'gcp',
      'cubecloud',
    ]);
    expect(create.responses['200']).toBeDefined();
    expect(create.responses['401'].$ref).toBe('#/components/responses/Error401');
    expect(res.body.paths['/admin/v1/accounts'].post.security).toEqual([{ operatorAuth: [] }]);
    expect(res.body.paths['/api/v1/deployments/{id}'].get.parameters[0].name).toBe('id');
  });

  // The reference UI and its files, the bare origin and its icon, and the health check, are not
  // API operations.
  const DOCS_AND_HEALTH = [
    '/',
    '/favicon.ico',
    '/api/v1/openapi.json',
    '/docs',
    '/docs/init.js',
    '/docs/assets/:file',
    '/healthz',
  ];

  it('documents every route the app serves, with a summary and its security', async () => {
    const res = await api('GET', '/api/v1/openapi.json');
    const undocumented: string[] = [];
    const seen = new Set<string>();
    for (const route of createApp().routes) {
      if (route.method === 'ALL' || DOCS_AND_HEALTH.includes(route.path)) continue;
      const path = route.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
      const key = `${route.method} ${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const operation = res.body.paths[path]?.[route.method.toLowerCase()];
      if (!operation?.summary || !Array.isArray(operation.security)) undocumented.push(key);
    }
    expect(undocumented).toEqual([]);
    expect(seen.size).toBeGreaterThan(10);
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.body).toContain('/api/v1/openapi.json');
  });
});

describe('toApiError', () => {
  it('turns constraint failures into conflicts and hides everything else behind a 500', () => {
    expect(
      toApiError(new Error('D1_ERROR: UNIQUE constraint failed: users.email: SQLITE_CONSTRAINT')).status,
    ).toBe(409);
    expect(toApiError(new Error('D1_ERROR: FOREIGN KEY constraint failed')).code).toBe('CONFLICT');
    const hidden = toApiError(new TypeError('cannot read x of undefined'));
    expect(hidden.status).toBe(500);
    expect(hidden.message).toBe('Internal error');
  });
});

describe('isNotFound', () => {
  it('tells a resource’s 404 by the resource it names, never by its text', () => {
    expect(isNotFound(notFound('Workbook'), 'Workbook')).toBe(true);
    expect(isNotFound(notFound('Folder'), 'Workbook')).toBe(false);
    // Same code and text, but not built as the workbook's 404.
    expect(isNotFound(new ApiError('NOT_FOUND', 'Workbook not found'), 'Workbook')).toBe(false);
    expect(notFound('Workbook')).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'Workbook not found',
    });
  });
});
