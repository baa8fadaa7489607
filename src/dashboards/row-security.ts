import type { ReportSnapshot } from './dashboards.schemas';

/** A viewer's user attributes by name: what row-level security filters report rows with. */
export type ViewerAttributes = Readonly<Record<string, string | number | readonly (string | number)[]>>;

/** Most attribute names a report's spec may declare in `rowSecurity`. */
export const MAX_ROW_SECURITY_NAMES = 32;

const isRow = (r: unknown): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r);

function allows(cell: unknown, value: ViewerAttributes[string] | undefined): boolean {
  // No value for a restricting attribute allows nothing: row-level security fails closed.
  if (value === undefined) return false;
  const allowed: readonly (string | number)[] = Array.isArray(value) ? value : [value as string | number];
  return allowed.some((a) => String(a) === String(cell));
}

/** The attribute names a spec declares its rows restricted by (`"rowSecurity": ["region", …]`). */
function declaredNames(spec: Record<string, unknown>): string[] {
  const declared = spec.rowSecurity;
  if (typeof declared === 'string') return [declared];
  if (!Array.isArray(declared)) return [];
  return declared.filter((n): n is string => typeof n === 'string').slice(0, MAX_ROW_SECURITY_NAMES);
}

export interface RestrictOptions {
  /**
   * Attribute names that restrict rows even when the viewer holds no value for them: the
   * account's (and tenant's) user-attribute catalogue. A row with such a column is then hidden.
   */
  restrictedBy?: readonly string[] | null;
}

/**
 * Row-level security on frozen report data. For a viewer (`attributes` not null), a report's rows
 * are restricted by every attribute that names one of their columns and is either held by the
 * viewer, listed in `options.restrictedBy`, or declared by the report's spec in `rowSecurity`.
 * A row carrying such a column is kept only when the viewer's value equals it (or an array value
 * contains it); a viewer WITHOUT a value sees none of those rows (fails closed). Rows without the
 * column, and specs that are not JSON rows, are left as they are. `attributes` null means no
 * viewer (an account user, a non-embed recipient): nothing is filtered. Everything a viewer or a
 * notification recipient sees goes through here.
 */
export function restrictSnapshots(
  snapshots: ReportSnapshot[],
  attributes: ViewerAttributes | null,
  options: RestrictOptions = {},
): ReportSnapshot[] {
  if (!attributes) return snapshots;
  const common = new Set([...Object.keys(attributes), ...(options.restrictedBy ?? [])]);
  return snapshots.map((snapshot) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(snapshot.spec);
    } catch {
      return snapshot;
    }
    if (!isRow(parsed) || !Array.isArray(parsed.data)) return snapshot;
    const names = [...new Set([...common, ...declaredNames(parsed)])];
    if (names.length === 0) return snapshot;
    const data = parsed.data.filter(
      (row) =>
        !isRow(row) ||
        names.every((name) => !Object.hasOwn(row, name) || allows(row[name], attributes[name])),
    );
    return data.length === parsed.data.length
      ? snapshot
      : { ...snapshot, spec: JSON.stringify({ ...parsed, data }) };
  });
}

/**
 * A notification recipient's `[{name, value}]` attributes, by name. null (not an embed recipient)
 * stays null: such recipients are not viewers and see every row. A null value is no value (its
 * rows stay hidden); a boolean compares as its text.
 */
export function attributesByName(
  list:
    | readonly { name: string; value: string | number | boolean | readonly (string | number)[] | null }[]
    | null,
): ViewerAttributes | null {
  if (!list) return null;
  return Object.fromEntries(
    list.flatMap((a) =>
      a.value === null ? [] : [[a.name, typeof a.value === 'boolean' ? String(a.value) : a.value]],
    ),
  );
}
