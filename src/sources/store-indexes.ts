import type { CompiledModel, Cube } from '../semantic/model/model.types';
import { identifierProblem } from './csv';
import { ROLLUP_TABLE_PREFIX } from './rollup-store';

/**
 * An index the embedded store keeps for a deployment's model: the columns of `table` a join
 * compares (together, in the join's order), or the instant of a time dimension's column, the
 * expression a time filter compiles to on SQLite (`instant`, one column).
 */
export interface StoreIndex {
  table: string;
  columns: string[];
  instant: boolean;
}

/** At most this many indexes are kept for one model (a cube joins a few others). */
export const MAX_STORE_INDEXES = 400;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `orders`, `main.orders`, `"orders"`: a table of the store itself. */
const STORE_TABLE = /^(?:main\.)?(?:([A-Za-z_][A-Za-z0-9_]*)|"([A-Za-z_][A-Za-z0-9_]*)")$/;
/** `{CUBE}.column` or `{cube}.column`. */
const ALIAS_COLUMN = /^\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\.([A-Za-z_][A-Za-z0-9_]*)$/;
/** `{member}`, `{CUBE.member}` or `{cube.member}`. */
const MEMBER = /^\{\s*(?:([A-Za-z_][A-Za-z0-9_]*)\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}$/;

/** Why a table name cannot be imported, dropped or indexed: the rules of identifiers, and the store's reserved prefix. */
export function tableNameProblem(name: string): string | null {
  const problem = identifierProblem(name);
  if (problem) return problem;
  if (name.toLowerCase().startsWith(ROLLUP_TABLE_PREFIX)) {
    return `must not start with ${ROLLUP_TABLE_PREFIX} (reserved for pre-aggregations)`;
  }
  return null;
}

/**
 * The table of the store a cube reads, when it reads one by name (`sql_table`) that an import
 * could have made, else null: SQLite's own tables and the store's own are never indexed.
 */
function tableOf(cube: Cube): string | null {
  const match = STORE_TABLE.exec(cube.sqlTable?.trim() ?? '');
  const table = match ? (match[1] ?? match[2] ?? null) : null;
  return table && !tableNameProblem(table) ? table : null;
}

/** The column a dimension's SQL is, when it is one column of its cube's table (`col` or `{CUBE}.col`). */
function columnOfDimension(sql: string): string | null {
  const text = sql.trim();
  if (IDENTIFIER.test(text)) return text;
  const match = ALIAS_COLUMN.exec(text);
  return match?.[1] === 'CUBE' ? (match[2] ?? null) : null;
}

/** One side of a join's equality as a column of a cube, when it is one. */
function columnOfSide(
  model: CompiledModel,
  owner: string,
  side: string,
): { cube: string; column: string } | null {
  const text = side
    .trim()
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  const cubeNamed = (name: string) => (name === 'CUBE' ? owner : name);
  const alias = ALIAS_COLUMN.exec(text);
  if (alias) {
    const cube = cubeNamed(alias[1] ?? '');
    return Object.hasOwn(model.cubes, cube) ? { cube, column: alias[2] ?? '' } : null;
  }
  const member = MEMBER.exec(text);
  if (!member) return null;
  const cube = cubeNamed(member[1] ?? 'CUBE');
  const dimension = Object.hasOwn(model.cubes, cube)
    ? model.cubes[cube]?.dimensions[member[2] ?? '']
    : undefined;
  const column = dimension ? columnOfDimension(dimension.sql) : null;
  return column ? { cube, column } : null;
}

/**
 * The columns of each cube a join compares: the join's SQL as equalities joined by AND, each side
 * a column of a cube (`{CUBE}.order_id = {orders.id}`, `{CUBE}.id = {order_items}.order_id`).
 * Any other condition indexes nothing.
 */
function joinColumns(model: CompiledModel, owner: string, sql: string): Map<string, string[]> {
  const columns = new Map<string, string[]>();
  for (const equality of sql.split(/\s+AND\s+/i)) {
    const sides = equality.split('=');
    if (sides.length !== 2 || /[<>!]$/.test(sides[0]?.trim() ?? '')) return new Map();
    for (const side of sides) {
      const found = columnOfSide(model, owner, side);
      if (!found) return new Map();
      const list = columns.get(found.cube) ?? [];
      if (!list.includes(found.column)) list.push(found.column);
      columns.set(found.cube, list);
    }
  }
  return columns;
}

/** What an index is, as text: two indexes are the same when their keys are (SQLite's names ignore case). */
export const indexKeyOf = (index: StoreIndex): string =>
  JSON.stringify([index.table.toLowerCase(), index.instant, index.columns.map((c) => c.toLowerCase())]);

/**
 * What the embedded store indexes for a model: for every cube reading a store table by name, the
 * columns its joins compare (on both sides), and each time dimension that is one column, by its
 * instant. SQLite otherwise builds a throwaway index for each join of each query, and reads a
 * whole table for a date range. At most MAX_STORE_INDEXES, in the model's order.
 */
export function storeIndexesOf(model: CompiledModel): StoreIndex[] {
  const indexes = new Map<string, StoreIndex>();
  const add = (index: StoreIndex) => {
    if (indexes.size < MAX_STORE_INDEXES) indexes.set(indexKeyOf(index), index);
  };
  for (const [name, cube] of Object.entries(model.cubes)) {
    for (const join of Object.values(cube.joins)) {
      for (const [joined, columns] of joinColumns(model, name, join.sql)) {
        const table = model.cubes[joined] ? tableOf(model.cubes[joined]) : null;
        if (table) add({ table, columns, instant: false });
      }
    }
    const table = tableOf(cube);
    if (!table) continue;
    for (const dimension of Object.values(cube.dimensions)) {
      const column = dimension.type === 'time' ? columnOfDimension(dimension.sql) : null;
      if (column) add({ table, columns: [column], instant: true });
    }
  }
  return [...indexes.values()];
}

/** The indexes of `table` among `indexes` (SQLite's names ignore case). */
export const indexesOfTable = (indexes: StoreIndex[], table: string): StoreIndex[] =>
  indexes.filter((index) => index.table.toLowerCase() === table.toLowerCase());
