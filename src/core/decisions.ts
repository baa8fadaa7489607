/** Decisions of the app core, recorded in the OpenAPI document (see core/openapi.ts) and docs/decisions.md. */
export const CORE_DECISIONS = [
  'Bodies that are not JSON are a 415; an empty body counts as no body.',
  'Every response carries `x-request-id` (a well-formed one sent by the client is kept); error bodies repeat it.',
  'Path ids that are not positive integers are a 400 naming the parameter.',
  'A cursor from another list or ordering is a 400 (`INVALID_CURSOR`), never a silently wrong page.',
  '`first` above 100 is a 400 naming `first` (edgeboard’s 1–100), not clamped: Cube declares no maximum, but a silently shorter page would hide the limit from a client that pages by count.',
  'Numeric ids are unique across the whole service and may be as large as 10^15 (accounts are spread over databases, each handing out ids from its own range). Deployment slugs and report public ids stay with their account once used, even after the deployment or report is deleted: an old URL never reaches another account.',
  'Path parameters keep edgeboard’s names (`{id}`) where Cube says `{deploymentId}`, `{folderId}`…: the name is not on the wire, and renaming it would change the typed client’s `param` keys.',
];
