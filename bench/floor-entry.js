// The floor Worker (scripts/bench.mjs): a trivial Worker in the same emulator whose paths each
// make only the platform calls a scenario cannot do without, so a scenario's time is read against
// what the platform alone costs. Never deployed; the bench's own code.
import { connect } from 'cloudflare:sockets';
import { pgRead } from './floor-pg.js';

/** One Cache API hit read to the end (filled on the first request). */
async function cacheHit(key) {
  const hit = await caches.default.match(key);
  if (hit) await hit.json();
  else
    await caches.default.put(
      key,
      new Response('{"ok":true}', { headers: { 'cache-control': 'max-age=3600' } }),
    );
}

export default {
  async fetch(req, env, ctx) {
    const p = new URL(req.url).pathname;
    if (p === '/kv' || p === '/both') await env.KV.get('k');
    if (p === '/d1' || p === '/both') await env.DB.prepare('SELECT 1 AS x').first();
    if (p === '/cached') {
      await Promise.all([1, 2].map(() => env.DB.prepare('SELECT 1 AS x').first()));
      await cacheHit('https://floor.invalid/cached');
    }
    // One Cache API hit read to the end: all a cached Cube `/load` needs from storage.
    if (p === '/cache') await cacheHit('https://floor.invalid/cache');
    // Eight Cache API hits side by side, each read to the end: what a cached 8-chart live load
    // adds to a static one, before any of its own work.
    if (p === '/cache8')
      await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => cacheHit(`https://floor.invalid/cache8/${i}`)));
    // A cold PostgreSQL read (floor-pg.js) of the query the body names, its answer written to the
    // Cache API after the response as a cold `/load`'s is (unless `put` is false). The server,
    // the SQL and its parameters come with the request: the bench's loopback servers only.
    if (p === '/pg' && req.method === 'POST') {
      const { target, sql, params, timeoutMs, put } = await req.json();
      const { columns, rows, queryMs } = await pgRead(connect, target, sql, params, timeoutMs);
      const answer = JSON.stringify({ columns, rows });
      if (put !== false) {
        const key = `https://floor.invalid/pg/${crypto.randomUUID()}`;
        ctx.waitUntil(
          caches.default.put(
            key,
            new Response(answer, {
              headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' },
            }),
          ),
        );
      }
      return new Response(answer, {
        headers: { 'content-type': 'application/json', 'server-timing': `pg-query;dur=${queryMs}` },
      });
    }
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};
