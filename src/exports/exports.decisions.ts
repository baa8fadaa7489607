/** Decisions about dashboard exports, recorded in the OpenAPI document and docs/decisions.md. */
export const EXPORTS_DECISIONS = [
  'Dashboard exports take any user’s Bearer token or an API key, like the render endpoint; a job is visible only to the user who started it (an API key acts as the account’s first admin), in its deployment: another user’s or another account’s job id is a 404, as is an unknown one.',
  'A job and its file live 5 minutes from the start (Cube’s `expiresAt`). After that its status and download are a 404, as for an unknown job (Cube: 404, not 410), and the per-minute cron deletes the row and the file.',
  'At most 5 unexpired exports per account may be queued or rendering at once; a start beyond that is a 429 `RATE_LIMITED` with `Retry-After: 10`. The count and the insert are one guarded statement, so racing starts cannot pass the bound.',
  'A start checks its controls before queuing: a filter with operator `custom`, a `caseSensitive` its operator cannot honour, or a member the deployment’s model lacks is a 400 naming the list; the same check runs again at render time (a model rebuilt meanwhile fails the job). `memberSwitchers` are accepted and ignored: edgeboard dashboards have no member switchers.',
  'A dashboard whose `restrictDataDownload` is set cannot be exported (403), whoever asks.',
  '`renderAs` takes a `USER` subject (admins only, 403 otherwise; an unknown user is a 404): account users share one identity, so the file is the same. `EMBED_USER` subjects are a 400.',
  'Status words are Cube’s (`pending`, `processing`, `completed`, `failed`); the answer adds `jobId`, `format`, `attempts`, `createdAt` and `expiresAt`, and has no `progress`. A render that fails on edgeboard’s own refusal (the dashboard deleted, no built model) fails the job at once; any other failure is retried with the queue, at most 3 renders, then the job fails with the last error.',
  'The download answers `Content-Disposition: attachment` with the `filename` stem (default `dashboard`) and the format’s extension, as `filename="…"` (non-ASCII characters as `_`) and `filename*=UTF-8\'\'…`. A job still pending or processing is a 409; a failed one a 422 `EXPORT_FAILED`.',
  'Files are kept in R2, not KV: a file is read right after its job is done, often from another location, where KV may lag up to a minute.',
];
