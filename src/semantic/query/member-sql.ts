import type { Dialect } from '../dialects/dialect';
import type { CompiledModel, Cube, Join, Measure } from '../model/model.types';
import { memberOfCube } from './members';
import { QueryError } from './query-error';

const BARE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REFERENCE = /\{([^{}]+)\}/g;
const MAX_DEPTH = 32;

/** Resolves a measure reference (inside a `number` measure) to SQL. */
export type MeasureReference = (cube: string, measure: Measure) => string;

/**
 * Member SQL with Cube's references resolved. Every cube is aliased by its quoted name, so a
 * member's SQL does not depend on the join tree; the cubes it reaches are recorded in `cubes`
 * (in first-use order) so the planner can join them.
 */
export class MemberSql {
  /** Cubes the resolved SQL refers to, in the order first met. */
  readonly cubes = new Set<string>();

  constructor(
    private readonly model: CompiledModel,
    private readonly dialect: Dialect,
  ) {}

  cube(name: string): Cube {
    const cube = Object.hasOwn(this.model.cubes, name) ? this.model.cubes[name] : undefined;
    if (!cube) throw new QueryError(`Unknown cube: ${name}`);
    return cube;
  }

  alias(cube: string): string {
    this.cubes.add(cube);
    return this.dialect.quote(cube);
  }

  /** `"public.orders" AS "orders"` or `(SELECT …) AS "orders"`. */
  source(cubeName: string): string {
    const cube = this.cube(cubeName);
    const from = cube.sqlTable ?? `(${cube.sql ?? ''})`;
    return `${from} AS ${this.alias(cubeName)}`;
  }

  dimension(cubeName: string, member: string): string {
    const dimension = this.cube(cubeName).dimensions[member];
    if (!dimension) throw new QueryError(`Unknown member: ${cubeName}.${member}`);
    return this.resolve(cubeName, dimension.sql, 0);
  }

  segment(cubeName: string, member: string): string {
    const segment = this.cube(cubeName).segments[member];
    if (!segment) throw new QueryError(`Unknown member: ${cubeName}.${member}`);
    return this.resolve(cubeName, segment.sql, 0);
  }

  /** A leaf measure's row expression; `undefined` for `count` without `sql` (rows). */
  measureInput(cubeName: string, measure: Measure): string | undefined {
    return measure.sql === undefined ? undefined : this.resolve(cubeName, measure.sql, 0);
  }

  /** The measure's own `filters`, ANDed; `undefined` when it has none. */
  measureCondition(cubeName: string, measure: Measure): string | undefined {
    if (measure.filters.length === 0) return undefined;
    return measure.filters.map((filter) => `(${this.resolve(cubeName, filter.sql, 0)})`).join(' AND ');
  }

  /** A `number` measure's expression, each measure it references given by `reference`. */
  numberMeasure(cubeName: string, measure: Measure, reference: MeasureReference): string {
    return this.resolve(cubeName, measure.sql ?? 'NULL', 0, reference);
  }

  /** A join's ON condition, written in the cube that declares it. */
  joinCondition(cubeName: string, join: Join): string {
    this.alias(join.cube);
    return this.resolve(cubeName, join.sql, 0);
  }

  private resolve(cubeName: string, sql: string, depth: number, reference?: MeasureReference): string {
    if (depth > MAX_DEPTH) throw new QueryError(`Member references are too deep in cube ${cubeName}`);
    if (BARE_IDENTIFIER.test(sql.trim())) return `${this.alias(cubeName)}.${sql.trim()}`;
    return sql.replace(REFERENCE, (_, token: string) => {
      const path = token.trim().split('.');
      if (path.length === 1) {
        const [name = ''] = path;
        if (name === 'CUBE') return this.alias(cubeName);
        if (memberOfCube(this.cube(cubeName), name)) return this.member(cubeName, name, depth, reference);
        if (Object.hasOwn(this.model.cubes, name)) return this.alias(name);
        throw new QueryError(`Unknown reference {${token}} in cube ${cubeName}`);
      }
      if (path.length === 2) {
        const [owner = '', name = ''] = path;
        const target = owner === 'CUBE' ? cubeName : owner;
        return this.member(target, name, depth, reference);
      }
      throw new QueryError(`Unknown reference {${token}} in cube ${cubeName}`);
    });
  }

  private member(cubeName: string, name: string, depth: number, reference?: MeasureReference): string {
    const found = memberOfCube(this.cube(cubeName), name);
    if (!found) throw new QueryError(`Unknown member: ${cubeName}.${name}`);
    this.cubes.add(cubeName);
    if (found.kind === 'measure') {
      if (!reference) throw new QueryError(`Measure ${found.name} cannot be referenced here`);
      return `(${reference(cubeName, found.measure)})`;
    }
    const sql = found.kind === 'dimension' ? found.dimension.sql : found.segment.sql;
    return `(${this.resolve(cubeName, sql, depth + 1, reference)})`;
  }

  /**
   * Whether SQL resolved here, with the measures it references replaced, reads rows: a column or
   * a dimension of a cube it named (`"orders".amount`, `{CUBE}`), or a bare column.
   */
  readsRows(sql: string): boolean {
    return [...this.cubes].some((cube) => sql.includes(this.dialect.quote(cube))) || readsColumns(sql);
  }
}

/** Words a `number` measure's SQL may hold besides function names and the measures it reads. */
const SQL_WORDS = new Set(
  (
    'null case when then else end and or not is in between as true false ' +
    'numeric decimal real float double precision integer int bigint smallint text varchar'
  ).split(' '),
);

/**
 * Whether SQL whose measure references were replaced reads a bare column (`{count} + MAX(amount)`):
 * a word that is no SQL keyword, type or function name (one followed by `(`).
 */
function readsColumns(sql: string): boolean {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''");
  // A word: not the exponent of a number (`1e5`) nor a name after a dot.
  for (const match of code.matchAll(/(?<![\w.])[A-Za-z_][A-Za-z0-9_]*/g)) {
    const after = code.slice((match.index ?? 0) + match[0].length).trimStart();
    if (after.startsWith('(')) continue;
    if (!SQL_WORDS.has(match[0].toLowerCase())) return true;
  }
  return false;
}
