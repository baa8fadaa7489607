import { sha256Hex } from '../core/crypto';
import { type MoveStep, shapeOf, type TableShape } from './move-plan';

// The statements of a move are written by hand: they are the same few statements over every
// account table of MOVE_PLAN (column lists, keys and ownership read from its drizzle
// definitions), which the query builder cannot express generically.

/** A row as D1 answers it: column name → value. */
export type Row = Record<string, unknown>;

/** The primary key values of a row, in the key's column order: where a keyset page resumes. */
export type Key = unknown[];

/** The bytes one statement's JSON parameter may hold (D1 takes at most 1 MB per bound value). */
const JSON_PARAM_BYTES = 900_000;

const encoder = new TextEncoder();

/** The row's primary key values. */
export const keyOf = (shape: TableShape, row: Row): Key => shape.primaryKey.map((c) => row[c]);

const keyList = (shape: TableShape) => shape.primaryKey.join(', ');

/** `(pk) > (?2, …)` for a page after `after`; nothing for the first page. */
function after(shape: TableShape, from: Key | null, firstParam: number): string {
  if (!from) return '';
  const params = shape.primaryKey.map((_, i) => `?${firstParam + i}`).join(', ');
  return ` AND (${keyList(shape)}) > (${params})`;
}

/**
 * The account's next `limit` rows of the step's table after `from`, by primary key: every
 * column, as stored.
 */
export async function readRows(
  d1: D1Database,
  step: MoveStep,
  accountId: number,
  from: Key | null,
  limit: number,
  until?: Key,
): Promise<Row[]> {
  const shape = shapeOf(step.table);
  const upTo = until
    ? ` AND (${keyList(shape)}) <= (${shape.primaryKey.map((_, i) => `?${2 + (from?.length ?? 0) + i}`).join(', ')})`
    : '';
  const { results } = await d1
    .prepare(
      `SELECT * FROM ${shape.name} WHERE (${step.owner})${after(shape, from, 2)}${upTo}
        ORDER BY ${keyList(shape)} LIMIT ${limit}`,
    )
    .bind(accountId, ...(from ?? []), ...(until ?? []))
    .all<Row>();
  return results;
}

/** How many rows of the step's table the account has. */
export async function countRows(d1: D1Database, step: MoveStep, accountId: number): Promise<number> {
  const shape = shapeOf(step.table);
  const row = await d1
    .prepare(`SELECT count(*) AS n FROM ${shape.name} WHERE ${step.owner}`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The value of a column as the copy writes it: the source's, or the step's `initially`. */
function valueSql(step: MoveStep, column: string, source: string): string {
  const initially = step.kind === 'rows' ? step.initially?.[column] : undefined;
  return initially ?? source;
}

function conflictClause(step: MoveStep, shape: TableShape): string {
  if (step.kind !== 'rows' || !step.overwrite) return 'ON CONFLICT DO NOTHING';
  const set = shape.columns
    .filter((c) => !shape.primaryKey.includes(c))
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  return `ON CONFLICT (${keyList(shape)}) DO UPDATE SET ${set}`;
}

/** Groups the rows into JSON texts within D1's size of a bound value; a row too large alone goes apart. */
function pack(rows: Row[]): { json: Row[][]; single: Row[] } {
  const json: Row[][] = [];
  const single: Row[] = [];
  let current: Row[] = [];
  let bytes = 2;
  for (const row of rows) {
    const size = encoder.encode(JSON.stringify(row)).byteLength + 1;
    if (size > JSON_PARAM_BYTES) {
      single.push(row);
      continue;
    }
    if (bytes + size > JSON_PARAM_BYTES && current.length > 0) {
      json.push(current);
      current = [];
      bytes = 2;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) json.push(current);
  return { json, single };
}

/**
 * Writes `rows` (read from the source by `readRows`) on the target in one batch, keeping every
 * id: a row already there is left as it is (or overwritten, for a step that says so), so a chunk
 * copied twice adds nothing. Triggers run as for any insert: the target indexes copied items for
 * search and counts their bytes. The ids are of a lower shard's range (moves only go up), below
 * every id the target hands out: its sequences stay in its own range.
 */
export async function writeRows(d1: D1Database, step: MoveStep, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const shape = shapeOf(step.table);
  const columns = shape.columns.join(', ');
  const conflict = conflictClause(step, shape);
  const { json, single } = pack(rows);
  const statements: D1PreparedStatement[] = [];
  for (const group of json) {
    const values = shape.columns.map((c) => valueSql(step, c, `j.value ->> '${c}'`)).join(', ');
    statements.push(
      d1
        .prepare(
          `INSERT INTO ${shape.name} (${columns}) SELECT ${values} FROM json_each(?1) j WHERE true ${conflict}`,
        )
        .bind(JSON.stringify(group)),
    );
  }
  for (const row of single) {
    const values = shape.columns.map((c, i) => valueSql(step, c, `?${i + 1}`)).join(', ');
    statements.push(
      d1
        .prepare(`INSERT INTO ${shape.name} (${columns}) VALUES (${values}) ${conflict}`)
        .bind(...shape.columns.map((c) => row[c] ?? null)),
    );
  }
  await d1.batch(statements);
}

/** Puts a restore step's columns of `rows` (read from the source) on the target's rows. */
export async function restoreColumns(d1: D1Database, step: MoveStep, rows: Row[]): Promise<void> {
  if (rows.length === 0 || step.kind !== 'restore') return;
  const shape = shapeOf(step.table);
  const set = step.columns.map((c) => `${c} = j.value ->> '${c}'`).join(', ');
  const match = shape.primaryKey.map((c) => `${shape.name}.${c} = j.value ->> '${c}'`).join(' AND ');
  const picked = rows.map((row) =>
    Object.fromEntries([...shape.primaryKey, ...step.columns].map((c) => [c, row[c]])),
  );
  await d1
    .prepare(`UPDATE ${shape.name} SET ${set} FROM json_each(?1) j WHERE ${match}`)
    .bind(JSON.stringify(picked))
    .run();
}

/**
 * Removes up to `limit` of the account's rows of a rows step (a restore step puts its columns
 * back to what they held while they waited, so the rows they point at can go): the clean-up of
 * the shard an account left, or of a failed move's target. Answers how many rows it touched.
 */
export async function removeRows(
  d1: D1Database,
  step: MoveStep,
  accountId: number,
  limit: number,
): Promise<number> {
  const shape = shapeOf(step.table);
  if (step.kind === 'restore') {
    const set = Object.entries(step.initially)
      .map(([c, v]) => `${c} = ${v}`)
      .join(', ');
    const waiting = Object.entries(step.initially)
      .map(([c, v]) => (v === 'NULL' ? `${c} IS NOT NULL` : `${c} IS NOT ${v}`))
      .join(' OR ');
    const { results } = await d1
      .prepare(
        `UPDATE ${shape.name} SET ${set} WHERE rowid IN (
          SELECT rowid FROM ${shape.name} WHERE (${step.owner}) AND (${waiting}) LIMIT ${limit}) RETURNING 1`,
      )
      .bind(accountId)
      .all();
    return results.length;
  }
  // RETURNING counts the rows themselves: D1's `changes` adds what the delete triggers changed.
  const { results } = await d1
    .prepare(
      `DELETE FROM ${shape.name} WHERE rowid IN (SELECT rowid FROM ${shape.name} WHERE ${step.owner} LIMIT ${limit})
        RETURNING 1`,
    )
    .bind(accountId)
    .all();
  return results.length;
}

/** The rows' canonical text, the same on both shards for the same content. */
export function rowsText(rows: Row[]): string {
  for (const row of rows) {
    for (const value of Object.values(row)) {
      if (value !== null && typeof value === 'object') throw new Error('a move copies no blob columns');
    }
  }
  return JSON.stringify(rows.map((row) => Object.values(row)));
}

/** SHA-256 of `previous` and `text`, hex: a checksum chained over a table's pages. */
export const chainDigest = (previous: string, text: string): Promise<string> =>
  sha256Hex(`${previous}\n${text}`);
