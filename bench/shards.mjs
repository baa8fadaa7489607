// Shards: a discrete-event model of accounts spread over many D1 databases, to compare shard
// counts before any exists. D1 runs one query at a time per database (about 1,000 queries/s at
// 1 ms each); past that, requests queue, and a database whose queue is full answers "overloaded".
// So each shard is modelled as one single-threaded server with a bounded FIFO queue, and so is the
// control database (the account directory). Plain Node, no Worker, no network, a fixed seed: the
// same run prints the same figures. What it prints are modelled figures, not measurements of D1;
// the ratios between shard counts are the point (docs/sharding-bench.md).

/** The bench needs no Worker: `--only shards` skips bundling it (scripts/bench.mjs). */
export const needsWorker = false;

/**
 * Modelled mean service time (ms) of one D1 round trip, the time the database is busy with it.
 * A batch is one round trip: D1 runs its statements back to back as one unit.
 */
export const SERVICE_MS = { read: 0.5, write: 1.5 };

const shard = (kind) => ({ on: 'shard', kind });
const control = (kind) => ({ on: 'control', kind });

/**
 * The hot paths and their D1 round trips, as the tests assert them (`x-d1-round-trips`):
 * test/embedding/sessions.test.ts (a load whose session KV holds: one statement, one round trip),
 * test/embedding/user-state.test.ts (a returning user unchanged: one read batch; a new user or a
 * change: one read batch, one write batch). The credential carries the shard, so none of them
 * touches the control database. `weight` is the request mix.
 */
export const HOT_PATHS = [
  { name: 'embed dashboard load', weight: 0.6, trips: [shard('read')] },
  { name: 'generate-session, returning user', weight: 0.3, trips: [shard('read')] },
  { name: 'generate-session, new or changed user', weight: 0.1, trips: [shard('read'), shard('write')] },
];

/**
 * The only requests that touch the control database: a new account (its directory entry, then
 * its rows on the shard the directory chose) and an operator change to an account (the directory
 * says where the account lives, then the change on its shard).
 */
export const CONTROL_OPS = [
  { name: 'new account', weight: 0.001, trips: [control('write'), shard('write')], newAccount: true },
  { name: 'operator change', weight: 0.001, trips: [control('read'), shard('write')] },
];

/** The modelled world; every field can be overridden by the caller (the test uses a tiny one). */
export const DEFAULTS = {
  /** Accounts, placed once before traffic starts. */
  accounts: 10_000,
  /** Activity of the ordinary accounts: the k-th most active has weight 1/k^zipf. */
  zipf: 0.8,
  /** A few heavy accounts, each with `share` of all traffic. */
  enterprise: { count: 4, share: 0.04 },
  /** Round trips a database holds waiting (besides the one it runs); one more is "overloaded". */
  queueLimit: 100,
  service: SERVICE_MS,
  mix: [...HOT_PATHS, ...CONTROL_OPS],
  /** A variant where every hot request also reads the directory first (shard not in the credential). */
  directoryLookup: false,
  seed: 20_260_101,
  /** Simulated seconds before measuring (queues fill), then seconds measured. */
  warmup: 2,
  duration: 30,
};

/** mulberry32: a small seeded generator, so every run draws the same numbers. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const exponential = (random, mean) => -Math.log(1 - random()) * mean;

/**
 * Each account's share of all traffic (summing to 1): `enterprise.count` heavy accounts first,
 * then the ordinary ones by Zipf rank over the rest of the traffic.
 */
export function activity(config) {
  const { accounts, zipf, enterprise } = { ...DEFAULTS, ...config };
  const weights = new Float64Array(accounts);
  const heavy = Math.min(enterprise.count, accounts);
  let sum = 0;
  for (let k = 1; k <= accounts - heavy; k++) sum += k ** -zipf;
  const rest = 1 - heavy * enterprise.share;
  for (let i = 0; i < accounts; i++) {
    weights[i] = i < heavy ? enterprise.share : (rest * (i - heavy + 1) ** -zipf) / sum;
  }
  return weights;
}

/**
 * Least-loaded placement: accounts sign up in a random order (their activity to come unknown),
 * and each goes to the shard carrying the least traffic at that moment (ties: fewest accounts,
 * then the lowest index).
 */
export function place(config, shards) {
  const cfg = { ...DEFAULTS, ...config };
  const weights = activity(cfg);
  const order = Array.from(weights, (_, i) => i);
  const random = rng(cfg.seed ^ 0x5eed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const shardOf = new Int32Array(weights.length);
  const share = new Float64Array(shards);
  const count = new Int32Array(shards);
  for (const account of order) {
    let best = 0;
    for (let s = 1; s < shards; s++) {
      if (share[s] < share[best] || (share[s] === share[best] && count[s] < count[best])) best = s;
    }
    shardOf[account] = best;
    share[best] += weights[account];
    count[best] += 1;
  }
  return { weights, shardOf, share, count };
}

/** Walker's alias table: an index drawn with the given weights in O(1). */
function aliasTable(weights) {
  const n = weights.length;
  const total = weights.reduce((a, b) => a + b, 0);
  const prob = new Float64Array(n);
  const alias = new Int32Array(n);
  const scaled = Array.from(weights, (w) => (w * n) / total);
  const small = [];
  const large = [];
  for (const [i, p] of scaled.entries()) (p < 1 ? small : large).push(i);
  while (small.length > 0 && large.length > 0) {
    const s = small.pop();
    const l = large.pop();
    prob[s] = scaled[s];
    alias[s] = l;
    scaled[l] -= 1 - scaled[s];
    (scaled[l] < 1 ? small : large).push(l);
  }
  for (const i of [...small, ...large]) prob[i] = 1;
  return (random) => {
    const u = random() * n;
    const i = Math.floor(u);
    return u - i < prob[i] ? i : alias[i];
  };
}

/** The request kinds in effect: with `directoryLookup`, hot requests read the directory first. */
function requestKinds(cfg) {
  return cfg.mix.map((m) =>
    cfg.directoryLookup && m.trips.every((t) => t.on === 'shard')
      ? { ...m, trips: [control('read'), ...m.trips] }
      : m,
  );
}

/** Mean time one request keeps a shard busy, and what one shard can serve: 1 / that time. */
export function shardCapacity(config) {
  const cfg = { ...DEFAULTS, ...config };
  const total = cfg.mix.reduce((a, m) => a + m.weight, 0);
  let ms = 0;
  for (const m of cfg.mix) {
    for (const t of m.trips) if (t.on === 'shard') ms += (m.weight / total) * cfg.service[t.kind];
  }
  return { meanShardMs: ms, requestsPerSecond: 1000 / ms };
}

/** A binary min-heap of servers by the time their round trip in service ends. */
class Completions {
  constructor(servers) {
    this.at = new Float64Array(servers);
    this.heap = [];
  }
  get size() {
    return this.heap.length;
  }
  peek() {
    return this.at[this.heap[0]];
  }
  push(server, time) {
    const { heap, at } = this;
    at[server] = time;
    let i = heap.push(server) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[heap[parent]] <= time) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = server;
  }
  pop() {
    const { heap, at } = this;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) break;
        const c = l + 1 < heap.length && at[heap[l + 1]] < at[heap[l]] ? l + 1 : l;
        if (at[heap[c]] >= at[last]) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}

const percentile = (sorted, p) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/**
 * One open-loop run: Poisson arrivals at `offered` requests/s over `warmup + duration` simulated
 * seconds, each request a random account (by activity) and kind (by the mix), its round trips
 * run one after the other on its shard (or the control database). A round trip that finds its
 * database's queue full fails the whole request as overloaded (no retry). After the arrivals stop
 * the queues drain, so every request ends completed or overloaded. Figures count the requests that
 * arrived after the warm-up; latency is the time spent at the databases (queueing + service), the
 * network between the Worker and D1 left out.
 */
export function simulate(config, shards, offered, placement = place(config, shards)) {
  const cfg = { ...DEFAULTS, ...config };
  const kinds = requestKinds(cfg);
  const pickAccount = aliasTable(placement.weights);
  const pickKind = aliasTable(kinds.map((m) => m.weight));
  // Separate streams, so a run at another load draws the same accounts, kinds and service times.
  const arrivals = rng(cfg.seed + 1);
  const accounts = rng(cfg.seed + 2);
  const mixes = rng(cfg.seed + 3);
  const services = rng(cfg.seed + 4);

  const CONTROL = shards;
  const servers = shards + 1;
  const queues = Array.from({ length: servers }, () => []);
  const heads = new Int32Array(servers);
  const running = new Array(servers).fill(null);
  const busyMs = new Float64Array(servers);
  const trips = new Float64Array(servers);
  // Measured requests per shard (by the account's shard) and how many of them were overloaded.
  const shardArrived = new Float64Array(shards);
  const shardOverloaded = new Float64Array(shards);
  const done = new Completions(servers);
  // Where a new account's rows go: the least-loaded shard (the model's accounts do not grow, so
  // each sign-up adds the smallest account's activity to its shard).
  const load = Float64Array.from(placement.share);
  const smallest = placement.weights.reduce((a, b) => Math.min(a, b), 1);

  const start = cfg.warmup * 1000;
  const end = start + cfg.duration * 1000;
  const meanGap = 1000 / offered;
  const totals = { arrived: 0, completed: 0, overloaded: 0 };
  const measured = { arrived: 0, completed: 0, overloaded: 0, controlRequests: 0 };
  const latencies = [];
  let inFlight = 0;

  const begin = (server, req, now) => {
    const trip = kinds[req.kind].trips[req.step];
    const ms = exponential(services, cfg.service[trip.kind]);
    running[server] = req;
    busyMs[server] += ms;
    done.push(server, now + ms);
  };
  const submit = (req, now) => {
    const trip = kinds[req.kind].trips[req.step];
    const server = trip.on === 'control' ? CONTROL : req.shard;
    if (running[server] === null) return begin(server, req, now);
    const queue = queues[server];
    if (queue.length - heads[server] >= cfg.queueLimit) {
      inFlight -= 1;
      totals.overloaded += 1;
      if (req.measured) {
        measured.overloaded += 1;
        shardOverloaded[req.shard] += 1;
      }
      return;
    }
    queue.push(req);
  };

  let now = 0;
  let nextArrival = exponential(arrivals, meanGap);
  for (;;) {
    if (nextArrival < end && (done.size === 0 || nextArrival <= done.peek())) {
      now = nextArrival;
      nextArrival += exponential(arrivals, meanGap);
      const kind = pickKind(mixes);
      const account = pickAccount(accounts);
      let target = placement.shardOf[account];
      if (kinds[kind].newAccount) {
        target = 0;
        for (let s = 1; s < shards; s++) if (load[s] < load[target]) target = s;
        load[target] += smallest;
      }
      const req = { at: now, kind, step: 0, shard: target, measured: now >= start };
      totals.arrived += 1;
      inFlight += 1;
      if (req.measured) {
        measured.arrived += 1;
        shardArrived[target] += 1;
        if (kinds[kind].trips.some((t) => t.on === 'control')) measured.controlRequests += 1;
      }
      submit(req, now);
      continue;
    }
    if (done.size === 0) break;
    now = done.peek();
    const server = done.pop();
    const req = running[server];
    running[server] = null;
    trips[server] += 1;
    const queue = queues[server];
    if (heads[server] < queue.length) {
      const next = queue[heads[server]];
      queue[heads[server]++] = undefined;
      if (heads[server] > 1024 && heads[server] * 2 > queue.length) {
        queue.splice(0, heads[server]);
        heads[server] = 0;
      }
      begin(server, next, now);
    }
    req.step += 1;
    if (req.step < kinds[req.kind].trips.length) {
      submit(req, now);
    } else {
      inFlight -= 1;
      totals.completed += 1;
      if (req.measured) {
        measured.completed += 1;
        latencies.push(now - req.at);
      }
    }
  }

  const sorted = Float64Array.from(latencies).sort();
  let busiest = 0;
  let worst = 0;
  for (let s = 0; s < shards; s++) {
    busiest = Math.max(busiest, busyMs[s] / now);
    if (shardArrived[s] > 0) worst = Math.max(worst, shardOverloaded[s] / shardArrived[s]);
  }
  return {
    shards,
    offered,
    totals,
    measured,
    inFlight,
    throughput: measured.completed / cfg.duration,
    overloadedFraction: measured.arrived === 0 ? 0 : measured.overloaded / measured.arrived,
    /** The overloaded fraction of the shard whose requests fail most: what its accounts see. */
    worstShardOverloaded: worst,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    busiestShardUtilisation: busiest,
    control: { trips: trips[CONTROL], utilisation: busyMs[CONTROL] / now },
    shardTrips: Array.from(trips.subarray(0, shards)),
  };
}

/** Whether a run counts as overloaded: more than 1% of its requests answered "overloaded". */
export const OVERLOADED = 0.01;

/**
 * How a run is judged against 1%: `all` its requests together (a hot shard may then fail more
 * while the others carry the average), or `shard`, the shard that fails most (what the accounts
 * living there see).
 */
const judged = { all: (r) => r.overloadedFraction, shard: (r) => r.worstShardOverloaded };

/**
 * The overload point: the highest offered load (requests/s) whose run stays at or under 1%
 * overloaded (by `criterion`), by bisection on a log scale between a load that passes and one
 * that fails. The starting bracket comes from the hottest shard's share (what the busiest
 * database can take), widened until it brackets.
 */
export function overloadPoint(
  config,
  shards,
  { iterations = 8, placement = place(config, shards), criterion = 'all' } = {},
) {
  const capacity = shardCapacity(config).requestsPerSecond;
  const hottest = Math.max(...placement.share);
  const bound = Math.min(capacity / hottest, shards * capacity);
  const fails = (r) => judged[criterion](r) > OVERLOADED;
  const run = (load) => simulate(config, shards, load, placement);
  let lo = bound * 0.6;
  let passing = run(lo);
  while (fails(passing)) {
    lo /= 2;
    passing = run(lo);
  }
  let hi = bound * 1.4;
  while (!fails(run(hi))) hi *= 2;
  for (let i = 0; i < iterations; i++) {
    const mid = Math.sqrt(lo * hi);
    const r = run(mid);
    if (fails(r)) {
      hi = mid;
    } else {
      lo = mid;
      passing = r;
    }
  }
  return { offered: lo, run: passing, bound, hottestShare: hottest };
}

/**
 * The figures of one shard count: sustained throughput (completed requests/s when offered twice
 * what the shards could serve perfectly balanced, so every shard is saturated), latency at
 * `fixedLoad`, and the overload points over all requests and for the shard that fails first.
 */
export function shardFigures(config, shards, { fixedLoad, iterations }) {
  const placement = place(config, shards);
  const capacity = shardCapacity(config).requestsPerSecond;
  const saturated = simulate(config, shards, 2 * shards * capacity, placement);
  const fixed = simulate(config, shards, fixedLoad, placement);
  const point = overloadPoint(config, shards, { iterations, placement });
  const firstShard = overloadPoint(config, shards, { iterations, placement, criterion: 'shard' });
  return { shards, placement, saturated, fixed, point, firstShard };
}

const fmt = (n, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '-';
const pad = (s, n) => String(s).padStart(n);
const pct = (x) => `${fmt(x * 100, 1)}%`;

/** The whole comparison as printed lines. */
/** The table's columns: heading, width, and the cell of a row (`one` is the one-shard row). */
const COLUMNS = [
  ['shards', 6, (r) => r.shards],
  ['hottest', 8, (r) => pct(Math.max(...r.placement.share))],
  ['sustained', 10, (r) => fmt(r.saturated.throughput)],
  ['x1', 5, (r, one) => fmt(r.saturated.throughput / one.saturated.throughput, 1)],
  ['p50 ms', 7, (r) => fmt(r.fixed.p50, 2)],
  ['p99 ms', 7, (r) => fmt(r.fixed.p99, 2)],
  ['ovl', 5, (r) => pct(r.fixed.overloadedFraction)],
  ['overload', 9, (r) => fmt(r.point.offered)],
  ['x1', 5, (r, one) => fmt(r.point.offered / one.point.offered, 1)],
  ['worst', 6, (r) => pct(r.point.run.worstShardOverloaded)],
  ['p99 there', 10, (r) => fmt(r.point.run.p99, 1)],
  ['control', 8, (r) => pct(r.point.run.control.utilisation)],
  ['1st shard', 10, (r) => fmt(r.firstShard.offered)],
  ['x1', 5, (r, one) => fmt(r.firstShard.offered / one.firstShard.offered, 1)],
  ['bound', 8, (r) => fmt(r.point.bound)],
];

/** The whole comparison as printed lines. */
export function report(config, { shardCounts, fixedLoad, iterations, variant }) {
  const cfg = { ...DEFAULTS, ...config };
  const { meanShardMs, requestsPerSecond } = shardCapacity(cfg);
  const weights = activity(cfg);
  const trips = (m) => m.trips.map((t) => `${t.on === 'control' ? 'control ' : ''}${t.kind}`).join(' + ');
  const lines = [
    'Modelled, not measured: each D1 database runs one round trip at a time; ' +
      `read ${cfg.service.read} ms, write ${cfg.service.write} ms (means, exponential), ` +
      `${cfg.queueLimit} waiting round trips per database, the next one "overloaded".`,
    `Mix: ${cfg.mix.map((m) => `${m.name} ${pct(m.weight)} (${trips(m)})`).join('; ')}.`,
    `A shard spends ${fmt(meanShardMs, 3)} ms per request: ${fmt(requestsPerSecond)} requests/s at most. ` +
      `${fmt(cfg.accounts)} accounts: Zipf ${cfg.zipf} plus ${cfg.enterprise.count} enterprise accounts at ` +
      `${pct(cfg.enterprise.share)} of traffic each (hottest account ${pct(Math.max(...weights))}), ` +
      'placed least-loaded in a random sign-up order. Poisson arrivals; ' +
      `${cfg.warmup} s warm-up + ${cfg.duration} s measured per run, seed ${cfg.seed}.`,
    '',
    COLUMNS.map(([h, w], i) => (i === 0 ? h.padEnd(w) : pad(h, w))).join(' '),
  ];
  const rows = shardCounts.map((shards) => shardFigures(cfg, shards, { fixedLoad, iterations }));
  const one = rows.find((r) => r.shards === 1) ?? rows[0];
  for (const r of rows) {
    lines.push(
      COLUMNS.map(([, w, cell], i) => (i === 0 ? String(cell(r, one)).padEnd(w) : pad(cell(r, one), w))).join(
        ' ',
      ),
    );
  }
  if (variant) {
    const r = overloadPoint({ ...cfg, directoryLookup: true }, variant, { iterations });
    lines.push(
      '',
      `${variant} shards, every hot request reading the directory first (the shard not carried in the credential): ` +
        `overload point ${fmt(r.offered)} requests/s, the control database ${pct(r.run.control.utilisation)} busy there.`,
    );
  }
  lines.push(
    '',
    'hottest: traffic share of the busiest shard. ' +
      `sustained: completed requests/s offered 2 x shards x ${fmt(requestsPerSecond)} (every shard saturated). ` +
      `p50/p99/ovl: latency at the databases and overloaded share at ${fmt(fixedLoad)} requests/s offered. ` +
      'overload: highest offered load with <= 1% of all requests overloaded; there, worst: the overloaded ' +
      "share of the shard that fails most, p99 there, control: the control database's busy time. " +
      '1st shard: highest offered load with no shard over 1% overloaded. ' +
      "bound: one shard's capacity / hottest share. x1: against one shard.",
  );
  return lines;
}

export default async function shardsBench(ctx) {
  const quick = Boolean(ctx?.quick);
  const capacity = shardCapacity(DEFAULTS).requestsPerSecond;
  // 80% of what one shard can serve, rounded: every shard count answers it, one shard busily.
  const fixedLoad = Math.round((0.8 * capacity) / 100) * 100;
  return [
    {
      name: 'shards: accounts over 1, 4, 16 and 64 D1 databases (discrete-event model)',
      run: () =>
        report(quick ? { warmup: 0.5, duration: 2 } : {}, {
          shardCounts: [1, 4, 16, 64],
          fixedLoad,
          iterations: quick ? 6 : 10,
          variant: 64,
        }),
    },
  ];
}
