/**
 * CSV for the embedded store: RFC 4180 parsing and the typing of columns. Pure, so the Durable
 * Object only creates tables and inserts what this module produced.
 */

/** The types a column of the embedded store has. Timestamps are stored as their ISO text. */
export const COLUMN_TYPES = ['text', 'integer', 'real', 'timestamp'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnSpec {
  name: string;
  type: ColumnType;
}

/** A CSV the store cannot take: the message is safe to show the caller. */
export class CsvError extends Error {}

/** Table and column names: SQL identifiers that need no quoting rules beyond double quotes. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_IDENTIFIER_LENGTH = 64;

/** Why `name` is not a usable table or column name, or null. */
export function identifierProblem(name: string): string | null {
  if (!IDENTIFIER.test(name)) return 'must match ^[A-Za-z_][A-Za-z0-9_]*$';
  if (name.length > MAX_IDENTIFIER_LENGTH) return `must be at most ${MAX_IDENTIFIER_LENGTH} characters`;
  // SQLite's own tables and the platform's (`_cf_…`) are off limits.
  if (/^(sqlite_|_cf_)/i.test(name)) return 'must not start with sqlite_ or _cf_';
  return null;
}

/**
 * The records of an RFC 4180 text: fields separated by commas, records by CRLF or LF, fields
 * in double quotes may hold commas, line breaks and doubled quotes (`""`). A final line break is
 * optional; blank lines between records are skipped. A quote inside an unquoted field, text after
 * a closing quote, or an unclosed quote is an error naming the line.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let line = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push(field);
    field = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    const blank = record.length === 0 && field === '' && !wasQuoted;
    endField();
    if (!blank) records.push(record);
    record = [];
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        const next = text[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvError(`Line ${line}: text after a closing quote`);
        }
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      i++;
      continue;
    }
    if (ch === '"') {
      if (field !== '') throw new CsvError(`Line ${line}: a quote inside an unquoted field`);
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      endField();
    } else if (ch === '\r' && text[i + 1] === '\n') {
      endRecord();
      line++;
      i++;
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      line++;
    } else {
      field += ch;
    }
    i++;
  }
  if (quoted) throw new CsvError(`Line ${line}: a quoted field is not closed`);
  if (field !== '' || record.length > 0 || wasQuoted) endRecord();
  return records;
}

const INTEGER = /^-?(0|[1-9]\d*)$/;
const REAL = /^-?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
/** ISO 8601 dates and date-times (`2024-03-10`, `2024-03-10T12:00:00.000Z`, `2024-03-10 12:00`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

const isInteger = (s: string) => INTEGER.test(s) && Number.isSafeInteger(Number(s));
const isReal = (s: string) => REAL.test(s) && Number.isFinite(Number(s));
const isTimestamp = (s: string) => TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));

/**
 * The narrowest type every non-empty value fits: integer, then real, then timestamp, then text.
 * Numbers with leading zeros (zip codes, ids) stay text, so no digit is lost.
 */
export function inferType(values: Iterable<string>): ColumnType {
  let integer = true;
  let real = true;
  let timestamp = true;
  let any = false;
  for (const value of values) {
    if (value === '') continue;
    any = true;
    integer &&= isInteger(value);
    real &&= isReal(value);
    timestamp &&= isTimestamp(value);
    if (!integer && !real && !timestamp) return 'text';
  }
  if (!any) return 'text';
  return integer ? 'integer' : real ? 'real' : timestamp ? 'timestamp' : 'text';
}

/** A field as the value stored in a column of `type`: an empty field is NULL. */
export function toStored(value: string, type: ColumnType): string | number | null {
  if (value === '') return null;
  if (type === 'integer') return isInteger(value) ? Number(value) : null;
  if (type === 'real') return isReal(value) ? Number(value) : null;
  if (type === 'timestamp') return isTimestamp(value) ? value : null;
  return value;
}

export interface TypedCsv {
  columns: ColumnSpec[];
  rows: (string | number | null)[][];
}

/**
 * A parsed CSV (header first) as typed rows. `given` fixes the types of some columns (the
 * others are inferred); `existing` is the table appended to, whose columns the header must
 * name (in any order, each once). A value that does not fit its column's type is an error
 * naming the line and column.
 */
export function typeCsv(
  records: string[][],
  given: readonly ColumnSpec[] = [],
  existing?: readonly ColumnSpec[],
  maxColumns = 100,
): TypedCsv {
  const [header, ...body] = records;
  if (!header) throw new CsvError('The CSV is empty: a header row naming the columns is required');
  if (header.length > maxColumns) throw new CsvError(`At most ${maxColumns} columns`);
  const seen = new Set<string>();
  for (const name of header) {
    const problem = identifierProblem(name);
    if (problem) throw new CsvError(`Column name "${name.slice(0, 80)}" ${problem}`);
    if (seen.has(name.toLowerCase())) throw new CsvError(`Column "${name}" appears twice in the header`);
    seen.add(name.toLowerCase());
  }
  for (const spec of given) {
    if (!seen.has(spec.name.toLowerCase())) throw new CsvError(`Column "${spec.name}" is not in the header`);
  }
  body.forEach((record, i) => {
    if (record.length !== header.length) {
      throw new CsvError(`Record ${i + 2} has ${record.length} fields; the header has ${header.length}`);
    }
  });
  const columns = header.map((name, c): ColumnSpec => {
    const fixed =
      existing?.find((s) => s.name.toLowerCase() === name.toLowerCase()) ??
      given.find((s) => s.name.toLowerCase() === name.toLowerCase());
    return { name, type: fixed?.type ?? inferType(body.map((r) => r[c] as string)) };
  });
  if (existing) {
    const missing = existing.filter((s) => !seen.has(s.name.toLowerCase()));
    const extra = header.filter((n) => !existing.some((s) => s.name.toLowerCase() === n.toLowerCase()));
    if (missing.length > 0 || extra.length > 0) {
      throw new CsvError(
        `The header must name the table's columns: ${existing.map((s) => s.name).join(', ')}` +
          (extra.length > 0 ? ` (not in the table: ${extra.join(', ')})` : ''),
      );
    }
  }
  const rows = body.map((record, r) =>
    record.map((value, c) => {
      const column = columns[c] as ColumnSpec;
      const stored = toStored(value, column.type);
      if (stored === null && value !== '') {
        throw new CsvError(
          `Record ${r + 2}, column "${column.name}": "${value.slice(0, 80)}" is not ${column.type}`,
        );
      }
      return stored;
    }),
  );
  return { columns, rows };
}
