// The mint bench's Worker entry (scripts/mint-bench.mjs; never deployed): it wraps the bundled
// edgeboard Worker and, for a request carrying `x-bench-off: kv,limiter`, hands it bindings whose
// named calls answer without storage: `kv` makes the SESSIONS put a no-op, `limiter` makes the
// session rate limiter allow at once. The code paths are unchanged; only the call's own cost
// goes, so the ratio with a call off says what that call costs the mint.
import worker from './index.js';

export { DeploymentStore } from './index.js';

function without(env, off) {
  const next = { ...env };
  if (off.has('kv')) {
    next.SESSIONS = new Proxy(env.SESSIONS, {
      get(target, prop) {
        if (prop === 'put') return async () => undefined;
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  if (off.has('limiter')) next.SESSION_RATE_LIMITER = { limit: async () => ({ success: true }) };
  return next;
}

export default {
  ...worker,
  fetch(request, env, ctx) {
    const off = request.headers.get('x-bench-off');
    return worker.fetch(request, off ? without(env, new Set(off.split(','))) : env, ctx);
  },
};
