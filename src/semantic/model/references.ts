/**
 * The grammar of references inside a model's SQL: `{CUBE}`, `{member}`, `{cube.member}`,
 * `{cube}`, each a dotted path of identifiers between single braces (spaces inside the braces
 * allowed). The model compiler validates them; the query compiler substitutes them.
 */

/** One `{…}` reference: its span in the SQL text (`end` exclusive) and its dotted path. */
export interface Reference {
  start: number;
  end: number;
  path: string[];
}

/** Something in braces that is not a reference this compiler understands. */
export interface TemplateProblem {
  start: number;
  end: number;
  message: string;
}

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const LEADING_WORD = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Cube's template variables, which need a request context this model format does not carry. */
const CONTEXT_VARIABLES = [
  'FILTER_PARAMS',
  'FILTER_GROUP',
  'SECURITY_CONTEXT',
  'COMPILE_CONTEXT',
  'SQL_UTILS',
];

/** Every reference and every malformed brace group in `sql`, in order. */
export function scanReferences(sql: string): { references: Reference[]; problems: TemplateProblem[] } {
  const references: Reference[] = [];
  const problems: TemplateProblem[] = [];
  let i = 0;
  while (i < sql.length) {
    const open = sql.indexOf('{', i);
    if (open < 0) break;
    const next = sql[open + 1];
    if (next === '{' || next === '%' || next === '#') {
      const closer = next === '{' ? '}}' : `${next}}`;
      const close = sql.indexOf(closer, open + 2);
      const end = close < 0 ? sql.length : close + 2;
      problems.push({ start: open, end, message: 'Jinja templates ({{ }}, {% %}) are not supported' });
      i = end;
      continue;
    }
    const close = sql.indexOf('}', open + 1);
    if (close < 0) {
      problems.push({
        start: open,
        end: sql.length,
        message: 'unclosed "{" (a reference is {member} or {cube.member})',
      });
      break;
    }
    const end = close + 1;
    const start = open > 0 && sql[open - 1] === '$' ? open - 1 : open;
    const inner = sql.slice(open + 1, close).trim();
    const word = LEADING_WORD.exec(inner)?.[0] ?? '';
    if (start !== open) {
      problems.push({
        start,
        end,
        message: `\${…} is the JavaScript model syntax; in YAML write {${inner}}`,
      });
    } else if (CONTEXT_VARIABLES.includes(word)) {
      problems.push({ start, end, message: `${word} is not supported` });
    } else if (!PATH.test(inner)) {
      problems.push({
        start,
        end,
        message: `"${sql.slice(start, end)}" is not a reference (write {CUBE}, {member} or {cube.member})`,
      });
    } else {
      references.push({ start, end, path: inner.split('.') });
    }
    i = end;
  }
  return { references, problems };
}

/** The references in `sql` (SQL the model compiler accepted has no malformed brace groups). */
export function parseReferences(sql: string): Reference[] {
  return scanReferences(sql).references;
}
