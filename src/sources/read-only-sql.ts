/**
 * The rule that keeps the embedded store's `query` to reads. `sql.exec` runs every statement
 * of its text, and the model's SQL is the tenant's, so the text is checked before it runs:
 *
 * 1. Comments, string literals and quoted identifiers are blanked out first, so nothing inside
 *    them counts (`'; DROP TABLE x'` is just a string).
 * 2. One statement only: no `;` but at the very end.
 * 3. It starts with SELECT, VALUES or WITH. In SQLite's grammar a statement that starts with
 *    SELECT or VALUES is a read; one that starts with WITH may still end in INSERT, UPDATE,
 *    DELETE or REPLACE, so those keywords may not appear at all (`replace(…)`, the string
 *    function, is told apart by its parenthesis). Nothing else in a single SELECT writes.
 *
 * The store also runs the statement inside a transaction that it rolls back if SQLite reports a
 * row written: a second, independent line of defence should this parse ever be wrong.
 */

/** `sql` with comments, string literals and quoted identifiers replaced by spaces. */
export function blankQuoted(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    const two = sql.slice(i, i + 2);
    if (two === '--') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (two === '/*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let j = i + 1;
      for (;;) {
        const at = sql.indexOf(close, j);
        if (at < 0) {
          j = sql.length;
          break;
        }
        // A doubled quote is an escaped quote (not for [identifiers], which cannot hold `]`).
        if (close !== ']' && sql[at + 1] === close) {
          j = at + 2;
          continue;
        }
        j = at + 1;
        break;
      }
      // Keep a placeholder character so `x'ab'` and `"a"."b"` stay separate tokens.
      out += `${ch === "'" ? '0' : 'q'}${' '.repeat(j - i - 1)}`;
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

const WRITES =
  /\b(insert|update|delete|replace(?!\s*\()|create|drop|alter|attach|detach|pragma|vacuum|reindex|analyze|begin|commit|rollback|savepoint|release)\b/i;

/** Why `sql` is not a single read-only statement the store runs, or null when it is. */
export function readOnlyProblem(sql: string): string | null {
  const code = blankQuoted(sql).trim().replace(/;\s*$/, '');
  if (code === '') return 'The query is empty';
  if (code.includes(';')) return 'Only one statement may be run at a time';
  if (!/^(select|values|with)\b/i.test(code)) return 'Only SELECT (or WITH … SELECT) queries may be run';
  const write = WRITES.exec(code);
  if (write) return `Only SELECT queries may be run; found ${write[1]?.toUpperCase()}`;
  return null;
}
