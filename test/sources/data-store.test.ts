import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { openDataSource } from '../../src/sources/open-data-source';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api, workerFetch } from '../helpers/http';

/** The embedded store's HTTP operations: import CSV, list and drop tables. */

let world: World;
let admin: { bearer: string };
let deploymentId: number;
beforeAll(async () => {
  world = await seedWorld();
  admin = world.acme.admin;
  deploymentId = world.acme.deployments[0];
});

const tables = (id = deploymentId) => `/api/v1/deployments/${id}/data/tables`;
const importCsv = (table: string, csv: string, query = '', auth: unknown = admin, id = deploymentId) =>
  api('POST', `${tables(id)}/${table}/import${query}`, {
    auth: auth as { bearer: string },
    rawBody: csv,
    headers: { 'content-type': 'text/csv; charset=utf-8' },
  });
const rowsOf = async (id: number, sql: string) =>
  (
    await openDataSource(env as Bindings, id, { type: 'embedded' }).run(sql, [], {
      timeoutMs: 5_000,
      maxRows: 100,
    })
  ).rows;

const SALES = 'day,city,amount,units\r\n2024-03-10,"Paris, FR",10.5,1\r\n2024-03-11,"São ""SP""",,2\r\n';

describe('POST …/data/tables/{table}/import', () => {
  it('imports CSV into the deployment’s store, where its data source reads it', async () => {
    const res = await importCsv('sales', SALES);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ table: 'sales', rowsImported: 2, rowCount: 2 });
    expect(await rowsOf(deploymentId, 'SELECT day, city, amount, units FROM sales ORDER BY day')).toEqual([
      { day: '2024-03-10', city: 'Paris, FR', amount: 10.5, units: 1 },
      { day: '2024-03-11', city: 'São "SP"', amount: null, units: 2 },
    ]);
  });

  it('appends, takes given types, and replaces', async () => {
    const appended = await importCsv('sales', 'units,amount,city,day\n3,1,Rome,2024-03-12\n', '?mode=append');
    expect(appended.body).toEqual({ table: 'sales', rowsImported: 1, rowCount: 3 });
    const typed = await importCsv('zips', 'zip,n\n75001,1\n', '?types=zip:text');
    expect(typed.status).toBe(200);
    expect(await rowsOf(deploymentId, 'SELECT zip, typeof(zip) AS t FROM zips')).toEqual([
      { zip: '75001', t: 'text' },
    ]);
    const replaced = await importCsv('zips', 'zip\n1\n2\n', '?mode=replace');
    expect(replaced.body).toEqual({ table: 'zips', rowsImported: 2, rowCount: 2 });
  });

  it('answers 400 in the error envelope for bad CSV, names and types, and changes nothing', async () => {
    const cases: [string, string, string][] = [
      ['sales', 'day,city\n"open', ''],
      ['sales', '', ''],
      ['sales', 'a b\n1\n', ''],
      ['sales', 'x\n1\n', '?mode=append'],
      ['bad-name', 'x\n1\n', ''],
      ['sqlite_x', 'x\n1\n', ''],
      ['t', 'x\n1\n', '?mode=upsert'],
      ['t', 'x\nabc\n', '?types=x:integer'],
      ['t', 'x\n1\n', '?types=x:blob'],
      ['t', `${Array.from({ length: 101 }, (_, i) => `c${i}`).join(',')}\n`, ''],
    ];
    for (const [table, csv, query] of cases) {
      const res = await importCsv(table, csv, query);
      expectError(res, 400);
    }
    // "São" saved as Latin-1: refused, not stored as "S\ufffdo".
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('city\nS'),
      0xe3,
      ...new TextEncoder().encode('o\n'),
    ]);
    const res = await workerFetch(`http://localhost${tables()}/latin/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.bearer}`, 'content-type': 'text/csv' },
      body: latin1,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'BAD_REQUEST', error: expect.stringContaining('UTF-8') });
    const list = await api('GET', tables(), { auth: admin });
    expect(list.body.items.map((t: { name: string }) => t.name)).toEqual(['sales', 'zips']);
    expect(list.body.items[0].rowCount).toBe(3);
  });

  it('takes only text/csv, and at most 1 MiB', async () => {
    const json = await api('POST', `${tables()}/t/import`, { auth: admin, body: { x: 1 } });
    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const big = `x\n${'a'.repeat(1024 * 1024)}\n`;
    expectError(await importCsv('big', big), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers 409 when the deployment’s data source is postgres', async () => {
    const id = world.acme.deployments[1];
    const set = await api('PUT', `/api/v1/deployments/${id}/env-vars`, {
      auth: admin,
      body: { env_variables: [{ name: 'CUBEJS_DB_TYPE', value: 'postgres' }] },
    });
    expect(set.status).toBe(200);
    const res = await importCsv('sales', SALES, '', admin, id);
    expectError(res, 409, 'CONFLICT');
    expect(res.body.error).toMatch(/data source is postgres/);
    expect((await api('GET', tables(id), { auth: admin })).body).toEqual({ items: [] });
  });

  it('needs an admin to write; members and scoped keys read; other accounts get 404', async () => {
    expectError(await importCsv('t', 'x\n1\n', '', world.acme.member), 403, 'FORBIDDEN');
    expectError(await api('DELETE', `${tables()}/sales`, { auth: world.acme.member }), 403, 'FORBIDDEN');
    const member = await api('GET', tables(), { auth: world.acme.member });
    expect(member.status).toBe(200);
    const scoped = { bearer: world.acme.scopedKey.apiKey };
    expect((await api('GET', tables(), { auth: scoped })).status).toBe(200);
    expectError(await api('GET', tables(world.acme.deployments[1]), { auth: scoped }), 403, 'KEY_SCOPE');
    const theirs = world.other.deployments[0];
    expectError(await importCsv('stolen', 'x\n1\n', '', admin, theirs), 404, 'NOT_FOUND');
    expectError(await api('GET', tables(theirs), { auth: admin }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${tables(theirs)}/sales`, { auth: admin }), 404, 'NOT_FOUND');
    expect((await api('GET', tables(theirs), { auth: world.other.admin })).body).toEqual({ items: [] });
  });
});

describe('GET and DELETE …/data/tables', () => {
  it('lists tables with columns and row counts, and drops them', async () => {
    const list = await api('GET', tables(), { auth: admin });
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toEqual({
      name: 'sales',
      columns: [
        { name: 'day', type: 'timestamp' },
        { name: 'city', type: 'text' },
        { name: 'amount', type: 'real' },
        { name: 'units', type: 'integer' },
      ],
      rowCount: 3,
      indexes: [],
    });
    const dropped = await api('DELETE', `${tables()}/zips`, { auth: admin });
    expect(dropped.status).toBe(200);
    expect(dropped.body).toEqual({ name: 'zips', deleted: true });
    expectError(await api('DELETE', `${tables()}/zips`, { auth: admin }), 404, 'NOT_FOUND');
    const after = await api('GET', tables(), { auth: admin });
    expect(after.body.items.map((t: { name: string }) => t.name)).toEqual(['sales']);
  });
});
