// No runtime imports: scripts/db-migrate.mjs imports this file directly (Node strips its types),
// so the deploy step, `npm start` and the tests seed and compare shards with the same code.

/**
 * Numeric ids are spread over the shards by range: shard k's rows take ids from
 * k × SHARD_ID_SPAN + 1 up, so an id is unique across every shard and tells the shard it was
 * created on (`shardOfId`). Shard 0's range starts at 1, so what existed before sharding keeps
 * its ids. 1000 shards keep every id under 10^15, what a path id may spell (15 digits).
 */
export const SHARD_ID_SPAN = 1_000_000_000_000;
export const MAX_SHARDS = 1000;

/** The shard whose range holds `id`. */
export const shardOfId = (id: number): number => Math.floor(id / SHARD_ID_SPAN);

/** The last id before shard `shard`'s range: what its AUTOINCREMENT sequences start from. */
export const idFloor = (shard: number): number => shard * SHARD_ID_SPAN;

/**
 * The statements that put every AUTOINCREMENT table of shard `shard` at the start of its id
 * range (SQLite's sqlite_sequence holds the last id each such table handed out). Idempotent:
 * a sequence already inside the range is left alone. They run after every migration, because a
 * migration that rebuilds a table drops the table's sequence with it. Shard 0's range starts at
 * 1, but it gets a row per table too: an insert scans sqlite_sequence, so every shard then reads
 * the same rows for the same work.
 */
export function idFloorStatements(shard: number): string[] {
  const floor = idFloor(shard);
  return [
    `INSERT INTO sqlite_sequence (name, seq) SELECT m.name, ${floor} FROM sqlite_master m
      WHERE m.type = 'table' AND m.sql LIKE '%AUTOINCREMENT%' AND m.name NOT LIKE 'd1\\_%' ESCAPE '\\'
        AND NOT EXISTS (SELECT 1 FROM sqlite_sequence s WHERE s.name = m.name)`,
    `UPDATE sqlite_sequence SET seq = ${floor} WHERE seq < ${floor} AND name NOT LIKE 'd1\\_%' ESCAPE '\\'`,
  ];
}

/**
 * One statement describing a database for `compareShards`: its schema (tables, indexes,
 * triggers, views, with their SQL), the migrations applied to it and its AUTOINCREMENT
 * sequences, each as JSON text. The platform's own objects (`sqlite_*`, `_cf_*`) are left out.
 */
export const DESCRIBE_SQL = `SELECT
  (SELECT json_group_array(json_array(type, name, tbl_name, sql)) FROM (
    SELECT type, name, tbl_name, sql FROM sqlite_master
    WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'
    ORDER BY type, name)) AS schema,
  (SELECT json_group_array(name) FROM (SELECT name FROM d1_migrations ORDER BY id)) AS migrations,
  (SELECT json_group_array(json_array(name, seq)) FROM (
    SELECT s.name, s.seq FROM sqlite_sequence s WHERE s.name NOT LIKE 'd1\\_%' ESCAPE '\\'
    ORDER BY s.name)) AS sequences,
  (SELECT json_group_array(name) FROM (
    SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'
      AND name NOT LIKE 'd1\\_%' ESCAPE '\\' ORDER BY name)) AS counters`;

/** The row `DESCRIBE_SQL` answers. */
export interface ShardDescriptionRow {
  schema: string;
  migrations: string;
  sequences: string;
  counters: string;
}

/** What a shard is made of, as `compareShards` reads it. */
export interface ShardDescription {
  /** The binding's name, for messages. */
  name: string;
  shard: number;
  /** [type, name, table, sql] of every schema object. */
  schema: [string, string, string, string | null][];
  migrations: string[];
  /** [table, last id handed out] of the AUTOINCREMENT tables that have one. */
  sequences: [string, number][];
  /** The AUTOINCREMENT tables. */
  counters: string[];
}

/** A `DESCRIBE_SQL` row of shard `shard` as a description. */
export function describeShard(name: string, shard: number, row: ShardDescriptionRow): ShardDescription {
  return {
    name,
    shard,
    schema: JSON.parse(row.schema),
    migrations: JSON.parse(row.migrations),
    sequences: JSON.parse(row.sequences),
    counters: JSON.parse(row.counters),
  };
}

const normalise = (sql: string | null) => (sql ?? '').replace(/\s+/g, ' ').trim();

/**
 * Every way the shards differ from shard 0 (the migrations applied, each schema object and its
 * SQL) and every shard whose ids are not where its range says (a sequence below the floor, or
 * one that left the range): empty when they agree.
 */
export function compareShards(shards: ShardDescription[]): string[] {
  const problems: string[] = [];
  const [first] = shards;
  if (!first) return problems;
  const objects = (d: ShardDescription) =>
    new Map(d.schema.map(([type, name, table, sql]) => [`${type} ${name}`, `${table}: ${normalise(sql)}`]));
  const reference = objects(first);
  for (const other of shards.slice(1)) {
    const label = `${other.name} (shard ${other.shard})`;
    const missing = first.migrations.filter((m) => !other.migrations.includes(m));
    const extra = other.migrations.filter((m) => !first.migrations.includes(m));
    if (missing.length)
      problems.push(`${label} lacks migrations applied to ${first.name}: ${missing.join(', ')}`);
    if (extra.length) problems.push(`${label} has migrations ${first.name} lacks: ${extra.join(', ')}`);
    const mine = objects(other);
    for (const [key, sql] of reference) {
      if (!mine.has(key)) problems.push(`${label} lacks ${key}`);
      else if (mine.get(key) !== sql) problems.push(`${label} differs on ${key}`);
    }
    for (const key of mine.keys())
      if (!reference.has(key)) problems.push(`${label} has ${key}, ${first.name} has not`);
  }
  for (const d of shards) {
    const floor = idFloor(d.shard);
    const seq = new Map(d.sequences);
    for (const table of d.counters) {
      const last = seq.get(table);
      if (d.shard > 0 && (last === undefined || last < floor)) {
        problems.push(`${d.name} (shard ${d.shard}): ${table} ids do not start at ${floor + 1}`);
      } else if (last !== undefined && last >= floor + SHARD_ID_SPAN) {
        problems.push(`${d.name} (shard ${d.shard}): ${table} ids left the shard's range (${last})`);
      }
    }
  }
  return problems;
}
