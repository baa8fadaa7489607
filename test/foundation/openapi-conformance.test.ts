import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http';
import { expectDeclared } from '../helpers/openapi';

// Every answer the suite sees is held to the served document (test/helpers/openapi.ts); these
// tests show that the check can fail, and pin what the document says where it once did not
// tell the truth.

type Json = any;
let document: Json;

beforeAll(async () => {
  const res = await api('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});

const json = (body: unknown, status = 200, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

const USER = {
  id: 1,
  email: 'a@example.com',
  username: 'a',
  firstName: 'A',
  picture: '',
  role: 'admin',
  createdAt: '2026-01-01T00:00:00.000Z',
  isAdmin: true,
  isDeactivated: false,
  notifications: {},
  title: null,
  settings: {},
  updatedAt: '2026-01-01T00:00:00.000Z',
  roleIds: [],
};
const ERROR = { error: 'No', code: 'NOT_FOUND', requestId: 'abcdefgh' };

describe('the check of every answer against the served document', () => {
  it('takes a declared status, content type and body', async () => {
    await expectDeclared('GET', 'http://edgeboard.test/api/v1/users/1', json(USER));
    await expectDeclared('GET', 'http://edgeboard.test/api/v1/users/1', json(ERROR, 404));
  });

  it('refuses a status the operation does not declare', async () => {
    await expect(expectDeclared('GET', '/api/v1/users/1', json(ERROR, 409))).rejects.toThrow(
      'GET /api/v1/users/1 (getUser) answered 409, which the OpenAPI document does not declare',
    );
  });

  it('refuses a content type the status does not declare', async () => {
    await expect(
      expectDeclared(
        'GET',
        '/api/v1/users/1',
        new Response('<p>hi</p>', { headers: { 'content-type': 'text/html' } }),
      ),
    ).rejects.toThrow('answered 200 as "text/html", but the document declares application/json');
  });

  it('refuses a JSON body the schema refuses: a wrong type, a missing field, a value outside an enum', async () => {
    const refused = (body: unknown, status = 200) =>
      expectDeclared('GET', '/api/v1/users/1', json(body, status));
    await expect(refused({ ...USER, id: 'one' })).rejects.toThrow('(body).id: expected number');
    const { email: _, ...withoutEmail } = USER;
    await expect(refused(withoutEmail)).rejects.toThrow('missing required property "email"');
    await expect(refused({ ...USER, role: 'owner' })).rejects.toThrow('"owner" is not one of');
    await expect(refused({ ...ERROR, code: 'NOPE' }, 404)).rejects.toThrow('(body).code');
  });

  it('lets a request no operation matches answer 404 or 405 only', async () => {
    await expectDeclared('GET', '/api/v1/nowhere', json(ERROR, 404));
    await expect(expectDeclared('GET', '/api/v1/nowhere', json({}, 200))).rejects.toThrow(
      'no operation of the OpenAPI document matches it',
    );
  });
});

describe('the served document', () => {
  const operation = (method: string, path: string) => document.paths[path]?.[method];

  it('names its server, relative to the host that serves it', () => {
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('declares both formats of the render endpoint', () => {
    const render = operation('get', '/api/v1/deployments/{deploymentId}/workbooks/{id}/dashboard/render');
    expect(Object.keys(render.responses['200'].content).sort()).toEqual(['application/pdf', 'image/png']);
  });

  it('declares the 401 of the session token exchange', () => {
    const exchange = operation('post', '/api/v1/embed/session/token');
    expect(exchange.responses['401'].$ref).toBe('#/components/responses/Error401');
  });

  it('declares 413 and 415 on operations that read a JSON body, 413 on every other write', () => {
    const create = operation('post', '/api/v1/deployments/{deploymentId}/folders');
    expect(create.responses['413'].$ref).toBe('#/components/responses/Error413');
    expect(create.responses['415'].$ref).toBe('#/components/responses/Error415');
    const token = operation('post', '/api/v1/users/{id}/access-tokens');
    expect(token.responses['413']).toBeDefined();
    expect(token.responses['415']).toBeUndefined();
    expect(operation('get', '/api/v1/users').responses['413']).toBeUndefined();
  });

  it('takes the viewer’s session where each viewer route reads it', () => {
    const page = operation('get', '/embed/dashboard/{publicId}');
    expect(page.security).toEqual([{ sessionQuery: [] }, {}]);
    expect(Object.keys(page.responses['401'].content)).toEqual(['text/html']);
    for (const path of ['/embed/dashboard/{publicId}/content', '/embed/dashboard/{publicId}/filter-values']) {
      expect(operation('get', path).security).toEqual([{ sessionAuth: [] }]);
    }
    expect(operation('get', '/api/v1/embed/dashboard/{publicId}').security).toEqual([
      { sessionAuth: [] },
      { sessionQuery: [] },
    ]);
  });
});
