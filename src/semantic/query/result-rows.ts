import { type LocalTime, localToMs } from '../../core/time-zone';
import type { NormalizedQuery, NormalizedTimeDimension } from './query.types';

/** What filling rows and comparing periods both read of a query's rows: its time buckets and series. */

/** The query's time dimension `name` (`Cube.dim`) or `name.granularity` names. */
export function timeDimensionOf(query: NormalizedQuery, member: string): NormalizedTimeDimension | undefined {
  return (
    query.timeDimensions.find((time) => time.granularity && `${time.name}.${time.granularity}` === member) ??
    query.timeDimensions.find((time) => time.name === member && time.granularity) ??
    query.timeDimensions.find((time) => time.name === member)
  );
}

/**
 * The query's dimensions other than `time`, each as the row columns that hold it, the key
 * that tells series apart, and the names a field may call it by.
 */
export function seriesKeysOf(
  query: NormalizedQuery,
  time: NormalizedTimeDimension | undefined,
): { column: string; columns: string[]; names: string[] }[] {
  const keys = query.dimensions.map((member) => ({
    column: member.name,
    columns: [member.name],
    names: [member.name],
  }));
  for (const other of query.timeDimensions) {
    if (other === time || !other.granularity) continue;
    const column = `${other.name}.${other.granularity}`;
    if (time?.granularity && column === `${time.name}.${time.granularity}`) continue;
    if (keys.some((key) => key.column === column)) continue;
    keys.push({ column, columns: [column, other.name], names: [column, other.name] });
  }
  return keys;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/** A bucket's wall-clock text (`2024-03-01T00:00:00.000`) as a local time. */
export function parseLocal(text: string): LocalTime | undefined {
  const match = LOCAL.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const millisecond = Number((match[7] ?? '0').padEnd(3, '0'));
  return { year, month, day, hour, minute, second, millisecond } as LocalTime;
}

/** A local time as Cube writes it: `YYYY-MM-DDTHH:MM:SS.mmm`. */
export function formatLocal(local: LocalTime): string {
  return new Date(localToMs(local)).toISOString().slice(0, 23);
}

/** A cell as a finite number (numeric text included), else null. */
export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
