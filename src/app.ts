import { bodyLimit } from 'hono/body-limit';
import { openAPIRouteHandler } from 'hono-openapi';
import { ACCOUNTS_DECISIONS } from './accounts/accounts.decisions';
import { accountsAdminRoutes } from './accounts/admin.routes';
import { apiKeysRoutes } from './accounts/api-keys.routes';
import { accountMovesRoutes } from './accounts/move.routes';
import { rolesRoutes } from './accounts/roles.routes';
import { shardsAdminRoutes } from './accounts/shards.routes';
import { TENANT_SETTINGS_DECISIONS } from './accounts/tenant-settings.decisions';
import { tenantSettingsRoutes } from './accounts/tenant-settings.routes';
import { usersRoutes } from './accounts/users.routes';
import { replayOf, ShardForward } from './auth/forwards';
import { COMMENTS_DECISIONS } from './comments/comments.decisions';
import { commentsRoutes } from './comments/comments.routes';
import { randomId } from './core/crypto';
import { CONTROL_DATABASE, countedD1, createDb, newD1Metrics, type QueryCounter } from './core/db';
import { CORE_DECISIONS } from './core/decisions';
import { docsRoutes } from './core/docs';
import { ApiError, errorBody, retryAfterOf, toApiError } from './core/errors';
import { homeRoutes } from './core/home';
import { documentation } from './core/openapi';
import { createRouter } from './core/router';
import { openShard } from './core/shards';
import { Timings } from './core/timings';
import { cubeApiRoutes } from './cube-api/cube-api.routes';
import { tokenRoutes } from './cube-api/token.routes';
import { DASHBOARDS_DECISIONS } from './dashboards/dashboards.decisions';
import { dashboardsRoutes } from './dashboards/dashboards.routes';
import { renderRoutes } from './dashboards/render.routes';
import { PRE_AGGREGATIONS_DECISIONS } from './data-api/pre-aggregations.decisions';
import { dataModelRoutes } from './deployments/data-model.routes';
import { dataStoreRoutes } from './deployments/data-store.routes';
import { DEPLOYMENTS_DECISIONS } from './deployments/deployments.decisions';
import { buildDeploymentsRoutes, deploymentsRoutes } from './deployments/deployments.routes';
import { envVarsRoutes } from './deployments/env-vars.routes';
import { embedTenantsRoutes, groupsRoutes, userAttributesRoutes } from './embedding/catalogues.routes';
import { embedRoutes } from './embedding/embed-sessions.routes';
import { EMBEDDING_DECISIONS } from './embedding/embedding.decisions';
import { userAttributeValuesRoutes } from './embedding/user-attribute-values.routes';
import { viewerRoutes } from './embedding/viewer.routes';
import { EXPORTS_DECISIONS } from './exports/exports.decisions';
import { exportsRoutes } from './exports/exports.routes';
import { executionContextOf, waitUntilOf } from './http/wait-until';
import { NOTIFICATIONS_DECISIONS } from './notifications/notifications.decisions';
import { notificationsRoutes } from './notifications/notifications.routes';
import { platformOf as deployedPlatform, type PlatformOf, portsOf } from './platform';
import { preAggregationRoutes } from './pre-aggregations/pre-aggregations.routes';
import { PRE_AGGREGATION_REFRESH_DECISIONS } from './pre-aggregations/refresh.decisions';
import { RENDER_DECISIONS } from './render/render.decisions';
import { foldersRoutes } from './workspace/folders.routes';
import { reportsRoutes } from './workspace/reports.routes';
import { sharingRoutes } from './workspace/sharing.routes';
import { workbooksRoutes } from './workspace/workbooks.routes';
import { WORKSPACE_DECISIONS } from './workspace/workspace.decisions';
import { workspaceRoutes } from './workspace/workspace.routes';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Sets headers on the answer: on its own headers when they may change (a Response the Worker
 * made), else on one copy. Hono's `c.header` copies a final answer once per header set.
 */
function setHeaders(
  c: { res: Response; header: (name: string, value: string) => void },
  headers: [string, string][],
) {
  try {
    for (const [name, value] of headers) c.res.headers.set(name, value);
  } catch {
    // Immutable headers (an answer fetched or read from a cache): Hono's `c.header` copies the
    // answer once, and the copy takes the rest.
    const [first, ...rest] = headers;
    if (first) c.header(first[0], first[1]);
    for (const [name, value] of rest) c.res.headers.set(name, value);
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * The whole HTTP surface: request id, per-request D1 (counted, on shard 0 until a route's
 * credential names the account's shard) and platform boundaries (from `platformOf`), body limit, one error handler rendering the contract's envelope, JSON 404s, and
 * every router mounted.
 */
export function createApp(platformOf: PlatformOf = deployedPlatform) {
  const app = createRouter();

  app.use('*', async (c, next) => {
    const given = c.req.header('x-request-id');
    // A request run again on the shard a moved account lives on counts on with its first run.
    // Read here, before the body limit may wrap the request in another.
    const replay = replayOf(c.req.raw);
    c.set('replay', replay);
    const requestId = replay?.requestId ?? (given && REQUEST_ID.test(given) ? given : randomId(12));
    c.set('requestId', requestId);
    const exposeMetrics = c.env.EXPOSE_DB_METRICS === '1';
    // Rows and replica figures only when they are exposed: metering reads changes how they run.
    const queries: QueryCounter =
      replay?.queries ?? (exposeMetrics ? newD1Metrics() : { queries: 0, roundTrips: 0 });
    // Shard 0 until the route's credential names another (src/auth/shard-routing.ts).
    const { d1, db } = openShard(c.env, 0, queries);
    const controlQueries: QueryCounter = replay?.controlQueries ?? { queries: 0, roundTrips: 0 };
    c.set('dispatch', async (request) => app.fetch(request, c.env, executionContextOf(c)));
    c.set('queries', queries);
    c.set('controlQueries', controlQueries);
    c.set('d1', d1);
    c.set('db', db);
    const platform = platformOf(c.env);
    const timings = exposeMetrics ? new Timings() : undefined;
    c.set('scope', {
      shard: 0,
      db,
      d1,
      control: createDb(countedD1(c.env.CONTROL_DB, controlQueries, CONTROL_DATABASE)),
      env: c.env,
      now: platform.clock.now(),
      ports: portsOf(platform),
      waitUntil: waitUntilOf(c),
      ...(timings && { timings }),
    });
    const started = performance.now();
    await next();
    // The whole request inside the Worker: what a client's time adds beyond it is the hop to it.
    timings?.add('worker', performance.now() - started);
    const headers: [string, string][] = [['x-request-id', requestId]];
    if (exposeMetrics) {
      headers.push(
        ['x-d1-queries', String(queries.queries)],
        ['x-d1-round-trips', String(queries.roundTrips)],
        ['x-d1-primary-round-trips', String(queries.primaryRoundTrips)],
        ['x-d1-replica-round-trips', String(queries.replicaRoundTrips)],
        ['x-d1-rows-read', String(queries.rowsRead)],
        ['x-d1-rows-written', String(queries.rowsWritten)],
        ['x-d1-unmetered', String(queries.unmetered)],
        ['x-d1-control-round-trips', String(controlQueries.roundTrips)],
      );
      const phases = timings?.header();
      if (phases) headers.push(['server-timing', phases]);
    }
    setHeaders(c, headers);
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError('PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB');
      },
    }),
  );

  app.onError((err, c) => {
    const requestId = c.get('requestId') ?? randomId(12);
    const apiError = toApiError(err);
    // A write refused while the account moves, or a request sent on to the shard it moved to
    // (src/auth/shard-routing.ts), is expected: not a fault to log.
    const expected = apiError.code === 'ACCOUNT_MOVING' || err instanceof ShardForward;
    if (apiError.status >= 500 && !expected) {
      console.error(JSON.stringify({ requestId, error: String(err), stack: (err as Error)?.stack }));
    }
    c.header('x-request-id', requestId);
    const retryAfter = retryAfterOf(apiError);
    if (retryAfter) c.header('retry-after', retryAfter);
    return c.json(errorBody(apiError, requestId), apiError.status);
  });

  app.notFound((c) => {
    const error = new ApiError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`);
    return c.json(errorBody(error, c.get('requestId')), 404);
  });

  // One chain, so the mounted routers' types accumulate into AppType for hono/client.
  const api = app
    .get('/healthz', (c) => c.json({ ok: true as const }))
    .route('/admin/v1/accounts', accountsAdminRoutes)
    .route('/admin/v1/shards', shardsAdminRoutes)
    .route('/admin/v1/accounts', accountMovesRoutes)
    .route('/api/v1/users', usersRoutes)
    .route('/api/v1/api-keys', apiKeysRoutes)
    .route('/api/v1', tenantSettingsRoutes)
    .route('/api/v1/roles', rolesRoutes)
    .route('/api/v1', deploymentsRoutes)
    .route('/api/v1', tokenRoutes)
    .route('/api/v1', envVarsRoutes)
    .route('/api/v1', dataStoreRoutes)
    .route('/api/v1', preAggregationRoutes)
    .route('/build/api/v1', buildDeploymentsRoutes)
    .route('/build/api/v1', dataModelRoutes)
    .route('/api/v1/groups', groupsRoutes)
    .route('/api/v1/user-attributes', userAttributesRoutes)
    .route('/api/v1/user-attribute-values', userAttributeValuesRoutes)
    .route('/api/v1/embed-tenants', embedTenantsRoutes)
    .route('/api/v1/embed', embedRoutes)
    .route('/api/v1/embed', commentsRoutes)
    .route('/api/v1/deployments/:deploymentId/notifications', notificationsRoutes)
    .route('/api/v1/deployments/:deploymentId/workspace', workspaceRoutes)
    .route('/api/v1/deployments/:deploymentId/folders', foldersRoutes)
    .route('/api/v1/deployments/:deploymentId/workbooks', workbooksRoutes)
    .route('/api/v1/deployments/:deploymentId/workbooks', dashboardsRoutes)
    .route('/api/v1/deployments/:deploymentId/reports', reportsRoutes)
    .route('/api/v1/deployments/:deploymentId', sharingRoutes)
    .route('/api/v1/deployments/:deploymentId/workbooks', renderRoutes)
    .route('/api/v1/deployments/:deploymentId/dashboard-exports', exportsRoutes)
    .route('/embed', viewerRoutes)
    .route('/cubejs-api/v1', cubeApiRoutes);

  app.get(
    '/api/v1/openapi.json',
    openAPIRouteHandler(app, {
      documentation: documentation([
        ...CORE_DECISIONS,
        ...ACCOUNTS_DECISIONS,
        ...TENANT_SETTINGS_DECISIONS,
        ...DEPLOYMENTS_DECISIONS,
        ...EMBEDDING_DECISIONS,
        ...COMMENTS_DECISIONS,
        ...NOTIFICATIONS_DECISIONS,
        ...WORKSPACE_DECISIONS,
        ...DASHBOARDS_DECISIONS,
        ...RENDER_DECISIONS,
        ...EXPORTS_DECISIONS,
        ...PRE_AGGREGATIONS_DECISIONS,
        ...PRE_AGGREGATION_REFRESH_DECISIONS,
      ]) as never,
      exclude: [
        '/api/v1/openapi.json',
        '/docs',
        '/docs/init.js',
        '/docs/assets/:file',
        '/healthz',
        '/',
        '/favicon.ico',
      ],
      defaultValidationErrorResponse: false,
    }),
  );
  app.route('/docs', docsRoutes);
  app.route('/', homeRoutes);

  return api;
}

/**
 * The type of the whole API, for typed clients: `hc<AppType>(baseUrl)` from `hono/client`
 * gives typed requests and answers for every route a route group declares.
 */
export type AppType = ReturnType<typeof createApp>;
