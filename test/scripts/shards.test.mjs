// Node test (not workerd): the sharding model of bench/shards.mjs on a tiny world, so a change
// that breaks the model (a lost request, a control round trip on a hot path, shards that stop
// adding capacity) fails `npm run lint` rather than printing wrong figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOT_PATHS, overloadPoint, place, SERVICE_MS, shardCapacity, simulate } from '../../bench/shards.mjs';

const tiny = { accounts: 200, enterprise: { count: 2, share: 0.05 }, warmup: 0.2, duration: 1, seed: 7 };
const capacity = shardCapacity(tiny).requestsPerSecond;

function assertConserved(run) {
  const { totals, measured } = run;
  assert.equal(run.inFlight, 0);
  assert.equal(totals.arrived, totals.completed + totals.overloaded);
  assert.equal(measured.arrived, measured.completed + measured.overloaded);
  assert.ok(measured.arrived > 0);
}

test('the capacity of a shard is one over the mean service time of its round trips per request', () => {
  const hot = shardCapacity({ mix: HOT_PATHS });
  const total = HOT_PATHS.reduce((a, m) => a + m.weight, 0);
  const ms = HOT_PATHS.reduce(
    (a, m) => a + (m.weight / total) * m.trips.reduce((b, t) => b + SERVICE_MS[t.kind], 0),
    0,
  );
  assert.ok(Math.abs(hot.meanShardMs - ms) < 1e-12);
  assert.ok(Math.abs(hot.requestsPerSecond - 1000 / ms) < 1e-9);
});

test('least-loaded placement puts every account on one shard and spreads the traffic', () => {
  const { shardOf, share, count, weights } = place(tiny, 4);
  assert.equal(shardOf.length, 200);
  assert.ok(shardOf.every((s) => s >= 0 && s < 4));
  assert.equal(
    count.reduce((a, b) => a + b, 0),
    200,
  );
  assert.ok(Math.abs(share.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  // Blind to activity, it still keeps every shard within reach of a fair quarter.
  assert.ok(Math.max(...share) < 0.4, `shares ${Array.from(share)}`);
  assert.ok(Math.min(...share) > 0.15, `shares ${Array.from(share)}`);
});

test('no request is lost: each one ends completed or overloaded, below and beyond capacity', () => {
  for (const shards of [1, 4]) {
    for (const load of [0.5, 2]) assertConserved(simulate(tiny, shards, load * shards * capacity));
  }
});

test('one shard beyond its capacity answers overloaded; below it, never', () => {
  const below = simulate(tiny, 1, 0.5 * capacity);
  assert.equal(below.measured.overloaded, 0);
  const beyond = simulate(tiny, 1, 1.5 * capacity);
  assert.ok(beyond.measured.overloaded > 0);
  // What it completes stays near its capacity, not the offered load.
  assert.ok(beyond.throughput < 1.1 * capacity, `${beyond.throughput}`);
  assert.ok(beyond.throughput > 0.85 * capacity, `${beyond.throughput}`);
  assert.ok(beyond.p99 >= beyond.p50 && below.p50 >= 0);
});

test('throughput and the overload point grow with shards', () => {
  const one = simulate(tiny, 1, 2 * capacity);
  const four = simulate(tiny, 4, 8 * capacity);
  assert.ok(four.throughput > 3.5 * one.throughput, `${four.throughput} vs ${one.throughput}`);
  const pointOne = overloadPoint(tiny, 1, { iterations: 5 });
  const pointFour = overloadPoint(tiny, 4, { iterations: 5 });
  assert.ok(pointFour.offered > 2 * pointOne.offered, `${pointFour.offered} vs ${pointOne.offered}`);
  // One shard overloads near its modelled capacity.
  assert.ok(Math.abs(pointOne.offered / capacity - 1) < 0.1, `${pointOne.offered} vs ${capacity}`);
  assert.ok(pointOne.run.overloadedFraction <= 0.01);
});

test('hot paths never touch the control database; a directory read on each makes it the ceiling', () => {
  const hotOnly = { ...tiny, mix: HOT_PATHS };
  const run = simulate(hotOnly, 4, 2 * capacity);
  assert.equal(run.control.trips, 0);
  assert.equal(run.measured.controlRequests, 0);
  const lookedUp = overloadPoint({ ...hotOnly, directoryLookup: true }, 4, { iterations: 5 });
  const directoryReads = 1000 / SERVICE_MS.read;
  assert.ok(lookedUp.offered < 1.1 * directoryReads, `${lookedUp.offered}`);
  assert.ok(lookedUp.run.control.trips > 0);
});

test('the same seed gives the same figures', () => {
  const a = simulate(tiny, 4, 3 * capacity);
  const b = simulate(tiny, 4, 3 * capacity);
  assert.deepEqual(a, b);
});
