/**
 * Where a request's time goes, by phase: a benchmark's breakdown, exposed as the `server-timing`
 * header when EXPOSE_DB_METRICS is "1" (never in production). Phases that run side by side add
 * up, so a phase is the time spent in it, not a slice of the wall clock.
 */
export class Timings {
  private readonly phases = new Map<string, number>();

  add(name: string, ms: number): void {
    this.phases.set(name, (this.phases.get(name) ?? 0) + ms);
  }

  /** `name;dur=1.25, …`, the Server-Timing header's syntax. */
  header(): string {
    return [...this.phases].map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`).join(', ');
  }
}

/** Runs `work`, adding its time to phase `name` when the request is timed; no cost otherwise. */
export async function timed<T>(
  timings: Timings | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!timings) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings.add(name, performance.now() - start);
  }
}

/** `timed` for synchronous work (planning, shaping). */
export function timedSync<T>(timings: Timings | undefined, name: string, work: () => T): T {
  if (!timings) return work();
  const start = performance.now();
  try {
    return work();
  } finally {
    timings.add(name, performance.now() - start);
  }
}
