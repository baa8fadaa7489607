import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { type DeploymentStore, deploymentStore } from '../../src/sources/deployment-store';
import { DataSourceError, openDataSource } from '../../src/sources/open-data-source';

/** The embedded store through its binding, as the data sources and the HTTP routes reach it. */
const bindings = env as Bindings;
const limits = { timeoutMs: 5_000, maxRows: 1_000 };
const embedded = (deploymentId: number) => openDataSource(bindings, deploymentId, { type: 'embedded' });

async function failure(promise: Promise<unknown>): Promise<DataSourceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DataSourceError);
    return err as DataSourceError;
  }
  throw new Error('expected the run to fail');
}

const ORDERS = [
  'id,customer,amount,placed_at,note',
  '1,"Smith, Jane",12.5,2024-03-10T12:00:00.000Z,"said ""hi"""',
  '2,O\'Hare,7,2024-03-11T00:00:00.000Z,"two',
  'lines"',
  '3,Zoë,,2024-03-12T08:30:00.000Z,',
].join('\r\n');

describe('the embedded store (DeploymentStore)', () => {
  it('imports a CSV with tricky quoting and inferred types, then answers queries with bound parameters', async () => {
    const store = deploymentStore(bindings, 9001);
    const imported = await store.importCsv({ table: 'orders', csv: ORDERS, mode: 'replace' });
    expect(imported).toEqual({ table: 'orders', rowsImported: 3, rowCount: 3 });
    expect(await store.listTables()).toEqual([
      {
        name: 'orders',
        columns: [
          { name: 'id', type: 'integer' },
          { name: 'customer', type: 'text' },
          { name: 'amount', type: 'real' },
          { name: 'placed_at', type: 'timestamp' },
          { name: 'note', type: 'text' },
        ],
        rowCount: 3,
        indexes: [],
      },
    ]);
    const source = embedded(9001);
    expect(source.dialect).toBe('sqlite');
    const { rows } = await source.run(
      'SELECT id, customer, amount, placed_at, note FROM orders WHERE id >= ? ORDER BY id',
      [1],
      limits,
    );
    expect(rows).toEqual([
      {
        id: 1,
        customer: 'Smith, Jane',
        amount: 12.5,
        placed_at: '2024-03-10T12:00:00.000Z',
        note: 'said "hi"',
      },
      { id: 2, customer: "O'Hare", amount: 7, placed_at: '2024-03-11T00:00:00.000Z', note: 'two\r\nlines' },
      { id: 3, customer: 'Zoë', amount: null, placed_at: '2024-03-12T08:30:00.000Z', note: null },
    ]);
    // Stored types, as SQLite sees them (the golden answer is SQLite's own typeof).
    const types = await source.run(
      'SELECT typeof(id) AS i, typeof(amount) AS a, typeof(placed_at) AS t FROM orders WHERE id = 2',
      [],
      limits,
    );
    expect(types.rows).toEqual([{ i: 'integer', a: 'real', t: 'text' }]);
  });

  it('appends to a table, replaces it, and refuses a header that does not match', async () => {
    const store = deploymentStore(bindings, 9002);
    await store.importCsv({ table: 't', csv: 'a,b\n1,x\n', mode: 'append' });
    expect(await store.importCsv({ table: 't', csv: 'b,a\ny,2\n', mode: 'append' })).toEqual({
      table: 't',
      rowsImported: 1,
      rowCount: 2,
    });
    expect(await store.importCsv({ table: 't', csv: 'a,c\n1,2\n', mode: 'append' })).toEqual({
      error: { kind: 'INVALID', message: expect.stringContaining('The header must name the table') },
    });
    // A failed import changes nothing: all or nothing.
    expect(await store.importCsv({ table: 't', csv: 'a,b\n3,z\nnot-a-number,w\n', mode: 'append' })).toEqual({
      error: { kind: 'INVALID', message: 'Record 3, column "a": "not-a-number" is not integer' },
    });
    const { rows } = await embedded(9002).run('SELECT a, b FROM t ORDER BY a', [], limits);
    expect(rows).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    expect(
      await store.importCsv({
        table: 't',
        csv: 'z\nq\n',
        mode: 'replace',
        columns: [{ name: 'z', type: 'text' }],
      }),
    ).toEqual({
      table: 't',
      rowsImported: 1,
      rowCount: 1,
    });
  });

  it('inserts in statements of at most 100 parameters', async () => {
    const header = Array.from({ length: 7 }, (_, i) => `c${i}`).join(',');
    const lines = Array.from({ length: 500 }, (_, r) =>
      Array.from({ length: 7 }, (_, c) => r * 7 + c).join(','),
    );
    const store = deploymentStore(bindings, 9003);
    expect(
      await store.importCsv({ table: 'wide', csv: [header, ...lines].join('\n'), mode: 'replace' }),
    ).toEqual({
      table: 'wide',
      rowsImported: 500,
      rowCount: 500,
    });
    const { rows } = await embedded(9003).run('SELECT sum(c6) AS s FROM wide', [], limits);
    expect(rows).toEqual([
      { s: Array.from({ length: 500 }, (_, r) => r * 7 + 6).reduce((a, b) => a + b, 0) },
    ]);
  });

  it('refuses more than 100 parameters, statements that are not reads, and too many rows', async () => {
    const store = deploymentStore(bindings, 9004);
    await store.importCsv({ table: 'n', csv: 'v\n1\n2\n3\n', mode: 'replace' });
    const source = embedded(9004);
    const params = Array.from({ length: 101 }, (_, i) => i);
    const many = await failure(
      source.run(`SELECT v FROM n WHERE v IN (${params.map(() => '?').join(',')})`, params, limits),
    );
    expect(many.code).toBe('QUERY');
    expect(many.message).toMatch(/at most 100 parameters/);
    for (const sql of [
      'DELETE FROM n',
      'SELECT 1; DELETE FROM n',
      'WITH x AS (SELECT 1) DELETE FROM n',
      'DROP TABLE n',
    ]) {
      const err = await failure(source.run(sql, [], limits));
      expect(err.code, sql).toBe('QUERY');
    }
    const rows = await failure(source.run('SELECT v FROM n', [], { timeoutMs: 5_000, maxRows: 2 }));
    expect(rows.code).toBe('TOO_MANY_ROWS');
    const bad = await failure(source.run('SELECT nope FROM n', [], limits));
    expect(bad).toMatchObject({ code: 'QUERY', message: expect.stringContaining('no such column: nope') });
    // Nothing above wrote: the three rows are still there.
    expect((await source.run('SELECT count(*) AS c FROM n', [], limits)).rows).toEqual([{ c: 3 }]);
  });

  it("keeps each deployment's tables to itself", async () => {
    await deploymentStore(bindings, 9005).importCsv({
      table: 'secret_sales',
      csv: 'x\n1\n',
      mode: 'replace',
    });
    const err = await failure(embedded(9006).run('SELECT x FROM secret_sales', [], limits));
    expect(err.message).toMatch(/no such table: secret_sales/);
    expect(await deploymentStore(bindings, 9006).listTables()).toEqual([]);
    expect((await embedded(9005).run('SELECT x FROM secret_sales', [], limits)).rows).toEqual([{ x: 1 }]);
  });

  it('drops tables and hides SQLite and platform tables from the list', async () => {
    const store = deploymentStore(bindings, 9007);
    await store.importCsv({ table: 'gone', csv: 'x\n1\n', mode: 'replace' });
    expect(await store.dropTable('gone')).toEqual({ name: 'gone', deleted: true });
    expect(await store.dropTable('gone')).toEqual({ error: { kind: 'NOT_FOUND', message: 'No table gone' } });
    expect(await store.dropTable('sqlite_master')).toMatchObject({ error: { kind: 'NOT_FOUND' } });
    await runInDurableObject(store, async (_instance: DeploymentStore, state) => {
      const names = state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray();
      expect(names.map((n) => n.name)).not.toContain('gone');
    });
    expect(await store.listTables()).toEqual([]);
  });

  it('refuses a 201st table', async () => {
    const store = deploymentStore(bindings, 9008);
    await runInDurableObject(store, async (_instance: DeploymentStore, state) => {
      for (let i = 0; i < 200; i++) state.storage.sql.exec(`CREATE TABLE t${i} (x)`);
    });
    expect(await store.importCsv({ table: 'one_more', csv: 'x\n1\n', mode: 'replace' })).toEqual({
      error: { kind: 'INVALID', message: "A deployment's store holds at most 200 tables" },
    });
    // Replacing a table that exists adds none, so it is still allowed.
    expect(await store.importCsv({ table: 't0', csv: 'x\n1\n', mode: 'replace' })).toMatchObject({
      rowCount: 1,
    });
  });
});
