import type { DeploymentScope } from '../core/scope';
import type { ControlFilter } from '../semantic/query/controls';
import type { Identity } from '../semantic/query/policies';

/**
 * The part of a deployment's scope the data API reads: where (database, bindings), when, and
 * which deployment of which account. A `DeploymentScope` is one; so is the scope of a caller
 * with no principal once its token names the deployment (a Cube API token, an embed session).
 * `waitUntil` is optional: a cron job or queue batch may run its cache writes inline.
 */
export type DeploymentDataScope = Pick<DeploymentScope, 'db' | 'env' | 'now' | 'accountId' | 'deploymentId'> &
  Partial<Pick<DeploymentScope, 'waitUntil' | 'timings'>>;

/** Who asks, about which deployment: what every data API call needs. */
export interface DataScope extends DeploymentDataScope {
  /** The caller's groups, attributes and security context: what the model's access policies read. */
  identity: Identity;
  /**
   * Filters every query of this caller gets, like a row-level policy (an embed session's locked
   * filters): a query that reads a locked member's cube but cannot be narrowed by it is refused.
   */
  locked?: readonly ControlFilter[];
  /**
   * The deployment's serving build and data source version when the caller read them already (in
   * its own statement): a load cached together is then found without reading them again.
   */
  serving?: ServingState | null;
}

/**
 * A deployment's scope with the caller's identity (and what else the caller knows): the data
 * scope other domains call the data API with.
 */
export function dataScope(
  scope: DeploymentDataScope,
  identity: Identity,
  own: Pick<DataScope, 'locked' | 'serving'> = {},
): DataScope {
  return {
    db: scope.db,
    env: scope.env,
    now: scope.now,
    accountId: scope.accountId,
    deploymentId: scope.deploymentId,
    ...(scope.waitUntil && { waitUntil: scope.waitUntil }),
    ...(scope.timings && { timings: scope.timings }),
    identity,
    ...(own.locked?.length && { locked: own.locked }),
    ...(own.serving !== undefined && { serving: own.serving }),
  };
}

/** What decides a deployment's answers besides the data: its serving build, its data source settings as stored, its rollups' generation. */
export interface ServingState {
  buildId: number;
  sourceVersion: string;
  /** Moves whenever a pre-aggregation partition of the deployment swaps in. */
  rollupGeneration: number;
}
