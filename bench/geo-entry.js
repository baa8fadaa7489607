// The bench's own Worker entry (never deployed): it wraps the bundled edgeboard Worker and, for
// requests carrying `x-bench-geo: <primary ms>,<replica ms>,<kv ms>`, delays each D1 round trip
// and KV read as a viewer far from the primary database would wait for them. edgeboard's code
// paths are unchanged: only the bindings handed to it are slower. Requests without the header
// (and the cron and queue handlers) get the bindings untouched.
//
// Where a round trip goes follows the rule of src/core/db.ts: the plain binding and
// withSession('first-primary') reach the primary; withSession('first-unconstrained') or a
// bookmark reach a replica, except statements that write, which a replica forwards.
//
// A request carrying `x-bench-off: cache-put` has its Cache API writes answered at once (the
// Worker's code still makes them): what the emulated Cache API's write, which runs on workerd's
// one thread beside the answer, adds to a request's time.
import { AsyncLocalStorage } from 'node:async_hooks';
import worker from './index.js';

// The Durable Object classes wrangler.toml binds must be exported by the entry module.
export { DeploymentStore } from './index.js';

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);
const READ_ONLY = /^\s*(select|with|explain|pragma|values)\b/i;
const WRITES = /\b(insert|update|delete|replace)\b/i;
const isWrite = (sql) => !READ_ONLY.test(sql) || WRITES.test(sql);
const RUNNERS = new Set(['first', 'all', 'run', 'raw']);
const INNER = Symbol('inner');
const SQL = Symbol('sql');

function slowStatement(stmt, sql, delay) {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === INNER) return target;
      if (prop === SQL) return sql;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'bind') return (...args) => slowStatement(value.apply(target, args), sql, delay);
      if (RUNNERS.has(prop)) {
        return async (...args) => {
          await sleep(delay(isWrite(sql)));
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

function slowDatabase(db, geo, replica) {
  const delay = (writes) => (replica && !writes ? geo.replica : geo.primary);
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'prepare') return (sql) => slowStatement(value.call(target, sql), sql, delay);
      if (prop === 'batch') {
        return async (stmts) => {
          await sleep(delay(stmts.some((s) => isWrite(s[SQL] ?? ''))));
          return value.call(
            target,
            stmts.map((s) => s[INNER] ?? s),
          );
        };
      }
      if (prop === 'exec') {
        return async (sql) => {
          await sleep(geo.primary);
          return value.call(target, sql);
        };
      }
      if (prop === 'withSession') {
        return (constraint) =>
          slowDatabase(
            value.call(target, constraint),
            geo,
            constraint !== undefined && constraint !== 'first-primary',
          );
      }
      return value.bind(target);
    },
  });
}

function slowKv(kv, geo) {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'get' || prop === 'getWithMetadata') {
        return async (...args) => {
          await sleep(geo.kv);
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

function geoEnv(request, env) {
  const header = request.headers.get('x-bench-geo');
  if (!header) return env;
  const [primary, replica, kv] = header.split(',').map(Number);
  const geo = { primary, replica, kv };
  return { ...env, DB: slowDatabase(env.DB, geo, false), SESSIONS: slowKv(env.SESSIONS, geo) };
}

/** What the request being served switched off (`x-bench-off`), as a set of names. */
const switchedOff = new AsyncLocalStorage();
const put = Cache.prototype.put;
Cache.prototype.put = function benchPut(...args) {
  return switchedOff.getStore()?.has('cache-put') ? Promise.resolve() : put.apply(this, args);
};

export default {
  fetch(request, env, ctx) {
    const run = () => worker.fetch(request, geoEnv(request, env), ctx);
    const off = request.headers.get('x-bench-off');
    return off ? switchedOff.run(new Set(off.split(',')), run) : run();
  },
  scheduled(controller, env, ctx) {
    return worker.scheduled(controller, env, ctx);
  },
  queue(batch, env, ctx) {
    return worker.queue(batch, env, ctx);
  },
};
