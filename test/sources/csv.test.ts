import { describe, expect, it } from 'vitest';
import { CsvError, inferType, parseCsv, typeCsv } from '../../src/sources/csv';
import { blankQuoted, readOnlyProblem } from '../../src/sources/read-only-sql';

describe('parseCsv (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes, line breaks, CRLF and a BOM', () => {
    const text =
      '\uFEFFid,name,note\r\n1,"Smith, Jane","said ""hi"""\r\n2,O\'Hare,"two\r\nlines"\r\n3,,""\r\n';
    expect(parseCsv(text)).toEqual([
      ['id', 'name', 'note'],
      ['1', 'Smith, Jane', 'said "hi"'],
      ['2', "O'Hare", 'two\r\nlines'],
      ['3', '', ''],
    ]);
  });

  it('takes LF, no final line break, and skips blank lines', () => {
    expect(parseCsv('a,b\n1,2\n\n3,4')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    expect(parseCsv('a\n""\n')).toEqual([['a'], ['']]);
  });

  it('refuses malformed quoting, naming the line', () => {
    expect(() => parseCsv('a,b\n1,"open')).toThrow(/Line 2: a quoted field is not closed/);
    expect(() => parseCsv('a,b\n1,x"y"')).toThrow(/Line 2: a quote inside an unquoted field/);
    expect(() => parseCsv('a,b\n1,"x"y')).toThrow(/Line 2: text after a closing quote/);
  });
});

describe('column types', () => {
  it('infers integer, real, timestamp and text from every value', () => {
    expect(inferType(['1', '-20', ''])).toBe('integer');
    expect(inferType(['1', '2.5', '1e3'])).toBe('real');
    expect(inferType(['2024-03-10', '2024-03-10T12:00:00Z', '2024-03-10 12:00:00.123+01:00'])).toBe(
      'timestamp',
    );
    expect(inferType(['007', '8'])).toBe('text');
    expect(inferType(['1', 'x'])).toBe('text');
    expect(inferType(['9007199254740993'])).toBe('real');
    expect(inferType(['', ''])).toBe('text');
  });

  it('types rows: empty fields are NULL, given types win, misfits are errors', () => {
    const typed = typeCsv(parseCsv('id,amount,zip\n1,2.5,007\n2,,010\n'), [{ name: 'id', type: 'text' }]);
    expect(typed.columns).toEqual([
      { name: 'id', type: 'text' },
      { name: 'amount', type: 'real' },
      { name: 'zip', type: 'text' },
    ]);
    expect(typed.rows).toEqual([
      ['1', 2.5, '007'],
      ['2', null, '010'],
    ]);
    expect(() => typeCsv(parseCsv('n\nx'), [{ name: 'n', type: 'integer' }])).toThrow(
      /Record 2, column "n": "x" is not integer/,
    );
  });

  it('refuses bad headers and ragged records', () => {
    expect(() => typeCsv([])).toThrow(CsvError);
    expect(() => typeCsv(parseCsv('a b\n1'))).toThrow(/Column name "a b" must match/);
    expect(() => typeCsv(parseCsv('a,A\n1,2'))).toThrow(/appears twice/);
    expect(() => typeCsv(parseCsv('sqlite_x\n1'))).toThrow(/must not start with sqlite_/);
    expect(() => typeCsv(parseCsv('a,b\n1'))).toThrow(/Record 2 has 1 fields; the header has 2/);
    expect(() => typeCsv(parseCsv(Array.from({ length: 101 }, (_, i) => `c${i}`).join(',')))).toThrow(
      /At most 100 columns/,
    );
  });
});

describe('the read-only rule of the embedded store', () => {
  it('blanks comments, strings and quoted identifiers', () => {
    expect(blankQuoted(`SELECT 'a;b', "x;y" -- ;\n/* ; */ FROM t`)).not.toContain(';');
  });

  it.each([
    'SELECT 1',
    '  -- a comment\n select * from t;  ',
    '/* lead */ WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    "SELECT replace(name, 'a', 'b') FROM t WHERE note = 'delete; drop table t'",
    'SELECT "update", [insert] FROM "create"',
    'VALUES (1), (2)',
  ])('runs %s', (sql) => {
    expect(readOnlyProblem(sql)).toBeNull();
  });

  it.each([
    ['DELETE FROM t', /Only SELECT/],
    ['SELECT 1; DROP TABLE t', /one statement/],
    ['SELECT 1; SELECT 2', /one statement/],
    ['WITH x AS (SELECT 1) DELETE FROM t', /found DELETE/],
    ['WITH x AS (SELECT 1) REPLACE INTO t VALUES (1)', /found REPLACE/],
    ['PRAGMA table_info(t)', /Only SELECT/],
    ['CREATE TABLE x (a)', /Only SELECT/],
    ['', /empty/],
    ['-- nothing', /empty/],
  ])('refuses %s', (sql, message) => {
    expect(readOnlyProblem(sql)).toMatch(message);
  });
});
