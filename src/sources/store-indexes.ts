import { aliasedColumnOf } from '../semantic/dialects/dialect';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel, Cube, Join } from '../semantic/model/model.types';
import { MemberSql } from '../semantic/query/member-sql';
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
 * The table of the store a cube reads by name (`sql_table`: `orders`, `main.orders`, `"orders"`),
 * when an import could have made it, else null: SQLite's tables and the store's own are never indexed.
 */
function tableOf(cube: Cube): string | null {
  if (cube.sqlTable === undefined) return null;
  const table = cube.sqlTable
    .trim()
    .replace(/^main\./i, '')
    .replace(/^"(.*)"$/, '$1');
  return tableNameProblem(table) ? null : table;
}

/**
 * The columns of each cube a join compares: its ON condition, resolved as a query resolves it,
 * as equalities joined by AND, each side a column of a cube (`{CUBE}.order_id = {orders.id}`,
 * `{CUBE}.id = {order_items}.order_id`). Any other condition indexes nothing.
 */
function joinColumns(members: MemberSql, owner: string, join: Join): Map<string, string[]> {
  const columns = new Map<string, string[]>();
  for (const equality of members.joinCondition(owner, join).split(/\s+AND\s+/i)) {
    const sides = equality.split('=');
    if (sides.length !== 2 || /[<>!]$/.test(sides[0]?.trim() ?? '')) return new Map();
    for (const side of sides) {
      const found = aliasedColumnOf(side);
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
  const members = new MemberSql(model, sqlite);
  const indexes = new Map<string, StoreIndex>();
  const add = (index: StoreIndex) => {
    if (indexes.size < MAX_STORE_INDEXES) indexes.set(indexKeyOf(index), index);
  };
  for (const [name, cube] of Object.entries(model.cubes)) {
    for (const join of Object.values(cube.joins)) {
      for (const [joined, columns] of joinColumns(members, name, join)) {
        const table = model.cubes[joined] ? tableOf(model.cubes[joined]) : null;
        if (table) add({ table, columns, instant: false });
      }
    }
    const table = tableOf(cube);
    if (!table) continue;
    for (const [dimensionName, dimension] of Object.entries(cube.dimensions)) {
      const found =
        dimension.type === 'time' ? aliasedColumnOf(members.dimension(name, dimensionName)) : null;
      if (found?.cube === name) add({ table, columns: [found.column], instant: true });
    }
  }
  return [...indexes.values()];
}

/** The indexes of `table` among `indexes` (SQLite's names ignore case). */
export const indexesOfTable = (indexes: StoreIndex[], table: string): StoreIndex[] =>
  indexes.filter((index) => index.table.toLowerCase() === table.toLowerCase());
