import { type SQL, sql } from 'drizzle-orm';

/**
 * Hand-written SQL: FTS5 MATCH on virtual tables drizzle does not model.
 *
 * The workspace list's `search` through the two FTS5 indexes of workspace_items (see the migration's custom
 * block): names are matched as lower-cased substrings. A trigram index cannot look up fewer than
 * three characters, so 1–2 character searches go through a second index of each name's 1- and
 * 2-character grams, written with the name (`nameGrams`). Either way the matching ids come from
 * an index, never from a walk of the deployment's items.
 */

const hex = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join('');

/** The token of a 1–2 character gram: `g` + hex of its UTF-8 bytes (SQLite's `hex()` spells the same). */
const gramToken = (gram: string) => `g${hex(gram)}`;

/** Every 1- and 2-character gram of `nameKey` (code points), as FTS tokens. */
export function nameGrams(nameKey: string): string {
  const chars = [...nameKey];
  const tokens: string[] = [];
  chars.forEach((char, i) => {
    tokens.push(gramToken(char));
    const next = chars[i + 1];
    if (next !== undefined) tokens.push(gramToken(char + next));
  });
  return tokens.join(' ');
}

/** The ids of the items whose name may contain `search` (already lower-cased, 1+ characters). */
export function matchingIds(search: string): SQL {
  return [...search].length >= 3
    ? sql`SELECT rowid AS id FROM workspace_items_trgm WHERE workspace_items_trgm MATCH ${`"${search.replaceAll('"', '""')}"`}`
    : sql`SELECT rowid AS id FROM workspace_items_grams WHERE workspace_items_grams MATCH ${gramToken(search)}`;
}

/**
 * The items a list walks, as a FROM clause aliased `i`: with a search, the index's matches drive
 * (CROSS JOIN fixes that order, so the planner cannot walk the deployment and probe the matches
 * instead); without, the table itself.
 */
export function itemsSource(search: string | null): SQL {
  return search === null
    ? sql`workspace_items i`
    : sql`(${matchingIds(search)}) m CROSS JOIN workspace_items i ON i.id = m.id`;
}

/** The exact meaning of a search: a lower-cased substring of the name (the index finds candidates). */
export const nameContains = (search: string): SQL => sql`instr(i.name_key, ${search}) > 0`;
