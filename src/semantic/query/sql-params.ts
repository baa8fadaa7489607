import type { Dialect } from '../dialects/dialect';
import type { CompiledSql } from './query.types';

const MARK = '\uE000';
const MARKER = /\uE000(\d+)\uE000/g;

/**
 * Bound values collected while SQL is assembled out of order. `add` returns a marker that stands
 * for the value in SQL text; `finish` numbers the markers in the order they appear in the final
 * text, so `?` dialects bind in the right order and `$n` dialects bind a repeated value once.
 */
export class SqlParams {
  private readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `${MARK}${this.values.length - 1}${MARK}`;
  }

  finish(sql: string, dialect: Dialect): CompiledSql {
    const params: unknown[] = [];
    const positions = new Map<number, number>();
    const text = sql.replace(MARKER, (_, index: string) => {
      const key = Number(index);
      const known = dialect.reusesParams ? positions.get(key) : undefined;
      if (known !== undefined) return dialect.placeholder(known);
      params.push(this.values[key]);
      positions.set(key, params.length);
      return dialect.placeholder(params.length);
    });
    return { sql: text, params };
  }
}

/**
 * `body` as the query's page, ordered by `order`, and with `total` the count of all its rows: the
 * planner and the rollup compiler end a query alike.
 */
export function pageOf(
  params: SqlParams,
  body: string,
  order: string[],
  query: { limit: number; offset: number; total: boolean },
  dialect: Dialect,
): { page: CompiledSql; totalSql?: CompiledSql } {
  const ordered = order.length > 0 ? ` ORDER BY ${order.join(', ')}` : '';
  const page = params.finish(
    `${body}${ordered} LIMIT ${params.add(query.limit)} OFFSET ${params.add(query.offset)}`,
    dialect,
  );
  if (!query.total) return { page };
  return { page, totalSql: params.finish(`SELECT count(*) AS total FROM (${body}) AS counted`, dialect) };
}
