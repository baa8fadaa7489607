import { type SQL, sql } from 'drizzle-orm';

/**
 * SQL condition: the deployment belongs to the account. Every domain that scopes a statement to
 * a caller's deployment repeats it inside the statement, so it lives here rather than in one of
 * them (a sideways import would make a cycle).
 */
export const deploymentOwned = (deploymentId: number, accountId: number): SQL =>
  sql`EXISTS (SELECT 1 FROM deployments WHERE id = ${deploymentId} AND account_id = ${accountId})`;
