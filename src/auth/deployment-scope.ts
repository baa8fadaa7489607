import type { Context } from 'hono';
import type { AppEnv } from '../core/env';
import type { DeploymentScope } from '../core/scope';
import { deploymentScope } from './scope';

// Transitional: the pre-scope call styles, kept until every route takes its scope from its group.
export type { DeploymentScope } from '../core/scope';

/** @deprecated use the route group's `scope: 'deployment'` or `deploymentScope(c, id)` */
export const scopeOf = (c: Context<AppEnv>, deploymentId: number): DeploymentScope =>
  deploymentScope(c, deploymentId);

/** @deprecated use `scope.now` */
export const nowOf = (c: Context<AppEnv>): string => c.get('scope').now.toISOString();

/** @deprecated use the route group's `scope: 'deployment'` */
export const inDeployment = (c: Context<AppEnv>, params: { deploymentId: number }) =>
  [c.get('db'), scopeOf(c, params.deploymentId)] as const;
