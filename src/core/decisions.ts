/** Decisions of the app core, recorded in the OpenAPI document (see core/openapi.ts). */
export const CORE_DECISIONS = [
  'Bodies that are not JSON are a 415; an empty body counts as no body.',
  'Every response carries `x-request-id` (a well-formed one sent by the client is kept); error bodies repeat it.',
  'Path ids that are not positive integers are a 400 naming the parameter.',
  'A cursor from another list or ordering is a 400 (`INVALID_CURSOR`), never a silently wrong page.',
];
