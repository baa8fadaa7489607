/** Decisions of the app core, recorded in the OpenAPI document (see core/openapi.ts) and docs/decisions.md. */
export const CORE_DECISIONS = [
  'Bodies that are not JSON are a 415; an empty body counts as no body. A compressed body (a `Content-Encoding` other than `identity`) is a 415 too, naming the coding: bodies are read as sent.',
  'Every JSON text a request sends (its body; the Cube API’s `query=` parameter; JSON carried as text inside them, a report’s `jsonQuery` and the `filters`, `timeGrains` and `widgets` parameters of dashboard loads and renders) must be well-formed Unicode. A body whose bytes are not UTF-8 is a 400 `INVALID_JSON`; a string or key holding a lone UTF-16 surrogate (an unpaired `\\ud800`–`\\udfff` escape, which JSON’s grammar allows and RFC 7493 forbids) is a 400 `VALIDATION_FAILED` naming its path, on every route. Stored, it would become U+FFFD, so the text kept would not be the text sent (an embed user’s id, a group’s name) and a later lookup by the sent text would miss it; a bad byte, decoded leniently, would be stored the same way. A surrogate pair (an emoji) is one character like any other.',
  'Every response carries `x-request-id` (a well-formed one sent by the client is kept); error bodies repeat it.',
  'Path ids that are not positive integers are a 400 naming the parameter.',
  'A cursor from another list or ordering is a 400 (`INVALID_CURSOR`), never a silently wrong page.',
  '`first` above 100 is a 400 naming `first` (edgeboard’s 1–100), not clamped: Cube declares no maximum, but a silently shorter page would hide the limit from a client that pages by count.',
  'Numeric ids are unique across the whole service and may be as large as 10^15 (accounts are spread over databases, each handing out ids from its own range). Deployment slugs and report public ids stay with their account once used, even after the deployment or report is deleted: an old URL never reaches another account.',
  'Path parameters keep edgeboard’s names (`{id}`) where Cube says `{deploymentId}`, `{folderId}`…: the name is not on the wire, and renaming it would change the typed client’s `param` keys.',
];
