// The figures the semantic and live benches print: percentiles and medians of timings in ms.

const sorted = (xs) => [...xs].sort((a, b) => a - b);

/** The p-th percentile (nearest rank) of the samples. */
export const pct = (xs, p) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

export const median = (xs) => {
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** A duration in ms with the digits that matter at its size. */
export const ms = (x) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
export const pad = (s, n) => String(s).padEnd(n);

/** Runs `fn`, answering how long it took and what it answered. */
export async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** The Worker's phases of one request (its `server-timing` header), in ms by name. */
export function phasesOf(header) {
  const phases = {};
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.find((p) => p.trim().startsWith('dur='));
    if (name && dur) phases[name] = Number(dur.trim().slice(4));
  }
  return phases;
}

/** Each phase's median over requests (a request without the phase counts 0), as `name median, …`. */
export function medianPhases(requests) {
  const names = [...new Set(requests.flatMap((phases) => Object.keys(phases)))];
  return names.map((name) => `${name} ${ms(median(requests.map((phases) => phases[name] ?? 0)))}`).join(', ');
}
