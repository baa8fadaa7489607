/**
 * A query the model cannot answer: unknown member, operator, granularity or date range, values
 * that do not fit, limits out of range. The message is what the caller reads (HTTP 400).
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';
}
