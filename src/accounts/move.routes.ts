import { idParams } from '../core/validation';
import { routes } from '../http/route';
import { operatorRoute } from './admin.routes';
import markdown from './move.routes.md';
import { moveAccountBody, moveSchema } from './move.schemas';
import { getMove, startMove } from './move.service';

const route = operatorRoute.with({ docs: markdown });

/** The operator's moves of accounts between shards (docs/sharding.md). Mounted at /admin/v1/accounts. */
export const accountMovesRoutes = routes(
  route.post('/:id/move', 'moveAccount', {
    input: { params: idParams, body: moveAccountBody },
    responses: { 202: moveSchema },
    errors: [404, 409],
    handler: async (_c, { params, body }, scope) => startMove(scope, params.id, body.shard),
  }),
  route.get('/:id/move', 'getAccountMove', moveSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getMove(scope, params.id),
  }),
);
