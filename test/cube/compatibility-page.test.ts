/// <reference types="vite/client" />
import { beforeAll, describe, expect, it } from 'vitest';
import page from '../../docs/cube-compatibility.md?raw';
import { api } from '../helpers/http';
import { cubeDocument, cubeOperations } from './cube-openapi';

/**
 * docs/cube-compatibility.md against Cube's vendored document and edgeboard's served one: every
 * operation of Cube's document has one row, under its tag, with Cube's method and path; a row
 * says works or differs exactly when edgeboard serves the operation (under Cube's operationId);
 * the summary counts what the rows say. A new operation in Cube's document, or a route edgeboard
 * adds or drops, fails here until the page says what it is.
 */

const STATUSES = ['works', 'differs', 'missing', 'out of scope'] as const;
type Status = (typeof STATUSES)[number];
const SERVED: readonly Status[] = ['works', 'differs'];

const TABLE_HEADER = '| Operation id | Method and path | Status | Difference |';
const ROW = /^\| `([A-Za-z0-9]+)` \| `([A-Z]+) (\/[^`]*)` \| ([a-z ]+) \| (.+) \|$/;
const SUMMARY_HEADER = '| Cube tag | Operations | Works | Differs | Missing | Out of scope |';
const SUMMARY_ROW =
  /^\| (?:\[([^\]]+)\]\(#[a-z0-9-]+\)|\*\*All\*\*) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$/;

interface Row {
  operationId: string;
  method: string;
  path: string;
  status: string;
  difference: string;
  section: string;
  line: number;
}

/** The operation rows of the page's tables, the section (## heading) each stands under, its count lines. */
function parsePage(text: string) {
  const rows: Row[] = [];
  const summary = new Map<string, number[]>();
  const countLines = new Map<string, string>();
  const malformed: string[] = [];
  let section = '';
  let table: 'operations' | 'summary' | null = null;
  for (const [index, line] of text.split('\n').entries()) {
    if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      table = null;
      continue;
    }
    if (line === TABLE_HEADER) table = 'operations';
    else if (line === SUMMARY_HEADER) table = 'summary';
    else if (!line.startsWith('|')) {
      table = null;
      if (/^\d+ operations?: /.test(line)) countLines.set(section, line.split('.')[0] ?? line);
    } else if (line.startsWith('|---')) continue;
    else if (table === 'operations') {
      const match = ROW.exec(line);
      if (!match) malformed.push(`line ${index + 1}: ${line}`);
      else {
        const [, operationId, method, path, status, difference] = match as unknown as string[];
        rows.push({
          operationId: operationId as string,
          method: method as string,
          path: path as string,
          status: (status as string).trim(),
          difference: (difference as string).trim(),
          section,
          line: index + 1,
        });
      }
    } else if (table === 'summary') {
      const match = SUMMARY_ROW.exec(line);
      if (!match) malformed.push(`line ${index + 1}: ${line}`);
      else summary.set(match[1] ?? 'All', match.slice(2).map(Number));
    }
  }
  return { rows, summary, countLines, malformed };
}

const { rows, summary, countLines, malformed } = parsePage(page);

/** Per tag (and 'All'): operations, then the count of each status in STATUSES order. */
function tally(selected: Row[]): number[] {
  return [selected.length, ...STATUSES.map((s) => selected.filter((r) => r.status === s).length)];
}

describe('docs/cube-compatibility.md', () => {
  it('has only well-formed operation and summary rows, with one of the four statuses', () => {
    expect(malformed).toEqual([]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(STATUSES, `line ${row.line}`).toContain(row.status);
      // Anything but a plain "works" says what differs, is missing or is out of scope, and why.
      if (row.status !== 'works') expect(row.difference.length, `line ${row.line}`).toBeGreaterThan(10);
    }
  });

  it("lists every operation of Cube's document once, under its tag, with Cube's method and path", () => {
    const byId = new Map(cubeOperations.map((op) => [op.operationId, op]));
    expect(rows.filter((r) => !byId.has(r.operationId)).map((r) => r.operationId)).toEqual([]);
    const ids = rows.map((r) => r.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(cubeOperations.filter((op) => !ids.includes(op.operationId)).map((op) => op.operationId)).toEqual(
      [],
    );
    for (const row of rows) {
      const op = byId.get(row.operationId);
      expect(
        { method: row.method, path: row.path, section: row.section },
        `${row.operationId} (line ${row.line})`,
      ).toEqual({ method: op?.method, path: op?.path, section: op?.tag });
    }
  });

  it('counts, in the summary and under each heading, what the rows say', () => {
    const tags = cubeDocument.tags.map((t) => t.name);
    expect([...summary.keys()]).toEqual([...tags, 'All']);
    for (const tag of tags) {
      const counted = tally(rows.filter((r) => r.section === tag));
      expect(summary.get(tag), tag).toEqual(counted);
      const [total, ...byStatus] = counted as [number, ...number[]];
      const parts = STATUSES.flatMap((s, i) => (byStatus[i] ? [`${s} ${byStatus[i]}`] : []));
      expect(countLines.get(tag), tag).toBe(
        `${total} operation${total === 1 ? '' : 's'}: ${parts.join(', ')}`,
      );
    }
    expect(summary.get('All')).toEqual(tally(rows));
  });

  describe("against edgeboard's served document", () => {
    const served = new Map<string, string | undefined>();
    const key = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
    beforeAll(async () => {
      const res = await api('GET', '/api/v1/openapi.json');
      expect(res.status).toBe(200);
      for (const [path, item] of Object.entries(
        res.body.paths as Record<string, Record<string, { operationId?: string }>>,
      )) {
        for (const [method, op] of Object.entries(item))
          served.set(key(method.toUpperCase(), path), op.operationId);
      }
    });

    it("marks works or differs exactly the operations edgeboard serves, under Cube's operationId", () => {
      for (const row of rows) {
        const at = `${row.operationId} ${row.method} ${row.path} (line ${row.line})`;
        const servedId = served.get(key(row.method, row.path));
        if (SERVED.includes(row.status as Status)) expect(servedId, at).toBe(row.operationId);
        else expect(servedId, `${at} is served but marked ${row.status}`).toBeUndefined();
      }
    });
  });
});
