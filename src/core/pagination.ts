import * as v from 'valibot';
import { ApiError } from './errors';
import { base64url, fromBase64url } from './text';
import { integerString, obj } from './validation';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `first` and `after` of every list. Spread it into a list's query schema. */
export const pageQueryEntries = {
  first: v.optional(integerString(1, MAX_PAGE_SIZE)),
  after: v.optional(v.pipe(v.string(), v.maxLength(2048))),
};

export const pageQuery = obj(pageQueryEntries);

export type CursorValue = string | number | null;

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

/**
 * An opaque cursor: the sort key of an item plus a tag naming the ordering it belongs to,
 * so a cursor from one ordering is refused by another instead of silently skipping rows.
 */
export function encodeCursor(tag: string, key: CursorValue[]): string {
  return base64url(new TextEncoder().encode(JSON.stringify([tag, ...key])));
}

export function decodeCursor(tag: string, cursor: string, length: number): CursorValue[] {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
    if (
      Array.isArray(parsed) &&
      parsed[0] === tag &&
      parsed.length === length + 1 &&
      parsed.slice(1).every((x) => x === null || typeof x === 'string' || typeof x === 'number')
    ) {
      return parsed.slice(1) as CursorValue[];
    }
  } catch {
    // fall through: any decoding failure is the same client error
  }
  throw invalidCursor();
}

/** A cursor that is malformed or belongs to another list, filter or order: a 400. */
export function invalidCursor(): ApiError {
  return new ApiError('INVALID_CURSOR', 'Invalid cursor: pass pageInfo.endCursor of the previous page', [
    { path: 'after', message: 'Malformed or foreign cursor' },
  ]);
}

export interface PageRequest {
  limit: number;
  after: CursorValue[] | null;
}

/** Reads `first`/`after` for one ordering; `keyLength` is the number of sort-key columns. */
export function pageRequest(
  query: { first?: number; after?: string },
  tag: string,
  keyLength: number,
): PageRequest {
  return {
    limit: query.first ?? DEFAULT_PAGE_SIZE,
    after: query.after ? decodeCursor(tag, query.after, keyLength) : null,
  };
}

/**
 * Turns the `limit + 1` rows a keyset query fetched into a page: the extra row only tells
 * whether another page follows.
 */
export function toPage<R, T>(
  rows: R[],
  request: PageRequest,
  tag: string,
  keyOf: (row: R) => CursorValue[],
  present: (row: R) => T,
): Page<T> {
  const hasNextPage = rows.length > request.limit;
  const pageRows = hasNextPage ? rows.slice(0, request.limit) : rows;
  const first = pageRows[0];
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(present),
    pageInfo: {
      hasNextPage,
      hasPreviousPage: request.after !== null,
      startCursor: first ? encodeCursor(tag, keyOf(first)) : null,
      endCursor: last ? encodeCursor(tag, keyOf(last)) : null,
    },
  };
}

/** A page of rows ordered by id alone (`afterId`), answered as they are. */
export function idPage<R extends { id: number }>(rows: R[], request: PageRequest, tag: string): Page<R> {
  return toPage(
    rows,
    request,
    tag,
    (row) => [row.id],
    (row) => row,
  );
}

/** Where a page stands in its list: `pageInfo` of every list's answer. */
export const pageInfoSchema = v.object({
  hasNextPage: v.boolean(),
  hasPreviousPage: v.boolean(),
  startCursor: v.nullable(v.string()),
  endCursor: v.nullable(v.string()),
});

/** The response schema of a list of `item`. */
export function pageSchema<S extends v.GenericSchema>(item: S) {
  return v.object({ items: v.array(item), pageInfo: pageInfoSchema });
}

/** For lists ordered by id alone: the id the page starts after, or null for the first page. */
export function afterId(request: PageRequest): number | null {
  const id = request.after?.[0];
  return typeof id === 'number' ? id : null;
}

/**
 * What a repository reads of a page of a list ordered by id alone: the id the page starts after
 * (before, for a list newest first; null for the first page) and how many rows it answers (it
 * reads one more, to know whether there is a next page).
 */
export interface IdCursor {
  afterId: number | null;
  limit: number;
}

/** The id cursor of a page request, for a list ordered by id alone. */
export const idCursor = (request: PageRequest): IdCursor => ({
  afterId: afterId(request),
  limit: request.limit,
});
