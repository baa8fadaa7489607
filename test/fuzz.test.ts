import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from './helpers/harness';
import { type Auth, api } from './helpers/http';

/**
 * Every operation of the OpenAPI document, sent malformed, oversized, deeply nested and
 * mistyped bodies, query strings and path parameters, with each credential it accepts. No
 * answer may be a 5xx: bad input is a 4xx in the error envelope. Cases are generated from
 * the document itself, so a new route is fuzzed without touching this file.
 */

type Json = any;

let acme: SeededAccount;
let doc: Json;
/** Real ids, so path parameters reach past the lookups into the handlers. */
const ids: Record<string, string> = {};

async function ok(res: Promise<{ status: number; body: Json }>): Promise<Json> {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

beforeAll(async () => {
  acme = await seedAccount();
  const d = acme.deployments[0];
  const base = `/api/v1/deployments/${d}`;
  const auth = acme.admin;
  const folder = await ok(api('POST', `${base}/folders`, { auth, body: { name: 'Fuzz folder' } }));
  const workbook = await ok(api('POST', `${base}/workbooks`, { auth, body: { name: 'Fuzz workbook' } }));
  const report = await ok(
    api('POST', `${base}/reports`, { auth, body: { name: 'Fuzz report', workbookId: workbook.id } }),
  );
  await ok(
    api('PUT', `${base}/workbooks/${workbook.id}/dashboard`, {
      auth,
      body: {
        dashboardDraft: {
          title: 'Fuzz',
          widgets: [{ id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 4, h: 2 }, config: { text: 'hi' } }],
        },
      },
    }),
  );
  const published = await ok(api('POST', `${base}/workbooks/${workbook.id}/publish`, { auth, body: {} }));
  const group = await ok(api('POST', '/api/v1/groups', { auth, body: { name: 'fuzz-group' } }));
  const attribute = await ok(
    api('POST', '/api/v1/user-attributes', { auth, body: { name: 'region', type: 'string' } }),
  );
  const notification = await ok(
    api('POST', `${base}/notifications`, {
      auth,
      body: { dashboardPublicId: published.publicId, scheduleType: 'DAILY', hour: 9, minute: 0 },
    }),
  );
  const users = await ok(api('GET', '/api/v1/users', { auth }));
  const keys = await ok(api('GET', '/api/v1/api-keys', { auth }));
  Object.assign(ids, {
    deploymentId: String(d),
    folderId: String(folder.id),
    workbookId: String(workbook.id),
    reportId: String(report.id),
    publicId: String(published.publicId),
    groupId: String(group.id),
    attributeId: String(attribute.id),
    notificationId: String(notification.id),
    userId: String(users.items[0].id),
    apiKeyId: String(keys.items[keys.items.length - 1].id),
    accountId: String(acme.accountId),
    embedTenantName: 'default',
  });
  doc = (await ok(api('GET', '/api/v1/openapi.json'))) as Json;
});

/** The id a `{name}` of `path` stands for: the segment before it says what it is. */
function paramValue(path: string, name: string): string {
  if (name !== 'id') return ids[name] ?? ids[`${name}Id`] ?? '1';
  const before = path.slice(0, path.indexOf('{id}')).split('/').filter(Boolean).pop() ?? '';
  const byCollection: Record<string, string> = {
    folders: 'folderId',
    workbooks: 'workbookId',
    reports: 'reportId',
    groups: 'groupId',
    'user-attributes': 'attributeId',
    notifications: 'notificationId',
    users: 'userId',
    'api-keys': 'apiKeyId',
    accounts: 'accountId',
    deployments: 'deploymentId',
  };
  return ids[byCollection[before] ?? ''] ?? '1';
}

function fillPath(path: string, override?: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(override?.[name] ?? paramValue(path, name)),
  );
}

function resolve(schema: Json): Json {
  if (schema?.$ref) {
    const name = String(schema.$ref).split('/').pop() as string;
    return resolve(doc.components?.schemas?.[name]);
  }
  return schema ?? {};
}

function nest(depth: number, leaf: Json = 1): Json {
  let value: Json = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Values of every wrong kind for one property. */
const WRONG_VALUES: Json[] = [
  null,
  true,
  -1,
  0,
  1.5,
  1e308,
  2 ** 53 + 1,
  '',
  'x'.repeat(10_000),
  '\u0000\ud800<script>',
  // Lone surrogates alone, where no other rule of a field refuses the text first.
  '\ud800',
  'a\udfffb',
  [],
  [1, 'a', null],
  {},
  { unknown: 1 },
  nest(40),
  nest(60),
  nest(1_200),
  nest(10_000),
  Array.from({ length: 2_000 }, (_, i) => i),
];

/** A plausible valid value for a property schema, so other fields pass and one is wrong. */
function sample(schema: Json, depth = 0): Json {
  const s = resolve(schema);
  if (depth > 4) return null;
  if (s.anyOf || s.oneOf)
    return sample((s.anyOf ?? s.oneOf).find((x: Json) => x.type !== 'null') ?? {}, depth);
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return s.minLength && s.minLength > 4 ? 'x'.repeat(s.minLength) : 'fuzzy';
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, Json> = {};
      for (const name of s.required ?? []) out[name] = sample(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    default:
      return 'fuzzy';
  }
}

interface Case {
  what: string;
  path: string;
  /** One wrong value in one field: sent with the first credential of each scheme only. */
  field?: true;
  query?: string;
  body?: Json;
  rawBody?: string;
  headers?: Record<string, string>;
}

function bodyCases(path: string, schema: Json): Case[] {
  const s = resolve(schema);
  const base = s.type === 'object' ? sample(s) : {};
  const cases: Case[] = [
    { what: 'no body', path },
    { what: 'null body', path, rawBody: 'null', headers: { 'content-type': 'application/json' } },
    { what: 'array body', path, body: [] },
    { what: 'string body', path, body: 'text' },
    { what: 'number body', path, body: 42 },
    { what: 'empty object', path, body: {} },
    { what: 'unknown field', path, body: { ...base, notAField: 1 } },
    { what: 'malformed JSON', path, rawBody: '{"a":', headers: { 'content-type': 'application/json' } },
    {
      what: 'not JSON',
      path,
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    { what: 'nested 100 levels', path, body: nest(100) },
    {
      what: 'nested 100,000 levels',
      path,
      rawBody: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      headers: { 'content-type': 'application/json' },
    },
    { what: 'body of 2 MB', path, body: { big: 'x'.repeat(2 * 1024 * 1024) } },
  ];
  for (const name of Object.keys(s.properties ?? {})) {
    for (const [i, value] of WRONG_VALUES.entries()) {
      cases.push({
        what: `${name} = wrong value #${i}`,
        path,
        body: { ...base, [name]: value },
        field: true,
      });
    }
  }
  return cases;
}

function queryCases(path: string, parameters: Json[]): Case[] {
  const cases: Case[] = [{ what: 'unknown query parameter', path, query: 'zzz=1' }];
  for (const p of parameters.filter((x) => x.in === 'query')) {
    for (const value of ['', 'x', '-1', '0', '1e3', '99999999999999999999', '%E0%A4%A', 'x'.repeat(5_000)]) {
      cases.push({ what: `?${p.name}=${value.slice(0, 12)}`, path, query: `${p.name}=${value}` });
    }
    cases.push({ what: `?${p.name} repeated`, path, query: `${p.name}=a&${p.name}=b&${p.name}=c` });
  }
  return cases;
}

function pathCases(path: string): Case[] {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const cases: Case[] = [];
  for (const name of names) {
    for (const value of ['0', '-1', 'abc', '1.5', '99999999999999999999', 'x'.repeat(300), '%00']) {
      cases.push({
        what: `{${name}} = ${value.slice(0, 12)}`,
        path,
        query: undefined,
        headers: { 'x-fuzz-path': fillPath(path, { [name]: value }) },
      });
    }
  }
  return cases;
}

/**
 * The credentials an operation is fuzzed with. The first of each scheme gets every case; the
 * others (a member beside an admin, a scoped key beside a full one) get every case but the
 * field-by-field wrong values, which meet the same body schema whoever sends them: about a third
 * of the requests, spent on the permission checks' paths rather than on the schema again.
 */
function credentials(operation: Json): { auth: Auth; fields: boolean }[] {
  const schemes = new Set((operation.security ?? []).flatMap((s: Json) => Object.keys(s)));
  const out: { auth: Auth; fields: boolean }[] = [];
  const scheme = (...auths: Auth[]) => {
    for (const [i, auth] of auths.entries()) out.push({ auth, fields: i === 0 });
  };
  if (schemes.has('bearerAuth')) scheme(acme.admin, acme.member);
  if (schemes.has('apiKeyAuth')) scheme(acme.key, acme.scopedKey);
  if (schemes.has('operatorAuth')) scheme({ bearer: 'test-operator-token' });
  // An embed session (header or `?session=`) is not forged here: those operations are fuzzed without one.
  if (schemes.size === 0 || schemes.has('sessionAuth') || schemes.has('sessionQuery')) scheme(null);
  return out;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Pages (the embed viewer) answer errors as HTML pages; every JSON operation uses the envelope. */
function answersJson(operation: Json): boolean {
  const success = Object.entries<Json>(operation.responses ?? {}).filter(([status]) =>
    status.startsWith('2'),
  );
  return success.some(([, r]) => r.content?.['application/json']);
}

describe('fuzzing every documented operation', () => {
  it('answers every malformed, oversized or nested input with a 4xx, never a 5xx', async () => {
    const operations: [string, string, Json][] = [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const method of METHODS) if (item[method]) operations.push([method, path, item[method]]);
    }
    // Deletes go last, so the resources other operations reach stay in place while they are fuzzed.
    expect(operations.length).toBeGreaterThan(50);

    const failures: string[] = [];
    let sent = 0;
    const send = async (method: string, path: string, operation: Json, c: Case, auth: Auth) => {
      const target = c.headers?.['x-fuzz-path'] ?? fillPath(c.path);
      const url = c.query ? `${target}?${c.query}` : target;
      const headers = { ...c.headers };
      delete headers['x-fuzz-path'];
      const res = await api(method.toUpperCase(), url, { auth, body: c.body, rawBody: c.rawBody, headers });
      sent += 1;
      const where = `${method.toUpperCase()} ${path} [${c.what}]`;
      if (res.status >= 500) {
        failures.push(`${where} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      } else if (res.status >= 400 && answersJson(operation) && typeof res.body?.code !== 'string') {
        failures.push(`${where} → ${res.status} without the error envelope`);
      }
    };
    const fuzz = async ([method, path, operation]: [string, string, Json]) => {
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const cases = [
        ...(method === 'get' || method === 'delete' ? [] : bodyCases(path, bodySchema)),
        ...queryCases(path, operation.parameters ?? []),
        ...pathCases(path),
      ];
      for (const { auth, fields } of credentials(operation))
        for (const c of cases) if (fields || !c.field) await send(method, path, operation, c, auth);
    };

    for (const op of operations.filter(([m]) => m !== 'delete')) await fuzz(op);
    // Whatever the writes above managed to store must not break a later read of it.
    for (const [method, path, operation] of operations.filter(([m]) => m === 'get')) {
      for (const { auth } of credentials(operation)) {
        await send(method, path, operation, { what: 'read back after the writes', path }, auth);
      }
    }
    for (const op of operations.filter(([m]) => m === 'delete')) await fuzz(op);
    expect(sent).toBeGreaterThan(5_000);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 600_000);
});
