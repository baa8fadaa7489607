import type { ReportSnapshot } from './dashboards.schemas';

/** A viewer's user attributes by name: what row-level security filters report rows with. */
export type ViewerAttributes = Readonly<Record<string, string | number | readonly (string | number)[]>>;

const isRow = (r: unknown): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r);

function allows(cell: unknown, value: ViewerAttributes[string]): boolean {
  const allowed: readonly (string | number)[] = Array.isArray(value) ? value : [value as string | number];
  return allowed.some((a) => String(a) === String(cell));
}

/**
 * Row-level security on frozen report data: a user attribute whose name is a column of a
 * snapshot's rows keeps only the rows whose value equals it (or is one of an array value).
 * Attributes naming no column, rows without that column, and specs that are not JSON rows are
 * left as they are. Everything a viewer or a notification recipient sees goes through here.
 */
export function restrictSnapshots(
  snapshots: ReportSnapshot[],
  attributes: ViewerAttributes | null,
): ReportSnapshot[] {
  const names = attributes ? Object.keys(attributes) : [];
  if (!attributes || names.length === 0) return snapshots;
  return snapshots.map((snapshot) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(snapshot.spec);
    } catch {
      return snapshot;
    }
    if (!isRow(parsed) || !Array.isArray(parsed.data)) return snapshot;
    const data = parsed.data.filter(
      (row) =>
        !isRow(row) ||
        names.every(
          (name) =>
            !Object.hasOwn(row, name) || allows(row[name], attributes[name] as ViewerAttributes[string]),
        ),
    );
    return data.length === parsed.data.length
      ? snapshot
      : { ...snapshot, spec: JSON.stringify({ ...parsed, data }) };
  });
}

/** E15's `[{name, value}]` attributes of a recipient, by name. */
export function attributesByName(
  list: readonly { name: string; value: string }[] | null,
): ViewerAttributes | null {
  return list ? Object.fromEntries(list.map((a) => [a.name, a.value])) : null;
}
