/** Decisions about accounts and credentials, recorded in the OpenAPI document. */
export const ACCOUNTS_DECISIONS = [
  'Access tokens start with `eb_at_`, API keys with `eb_ak_`, so secret scanners can find them. Only their SHA-256 is stored; the secret is shown once; deleting one revokes it at once.',
  'A user may list, create and revoke their own access tokens; managing other users and their tokens needs the admin role.',
  'An API key works wherever an admin access token does, as `Authorization: Api-Key <key>` or `Authorization: Bearer <key>` (Cube sends keys as Bearer); the `eb_ak_`/`eb_at_` prefix tells the two apart without a lookup. Routes marked Api-Key only (generate-session) refuse access tokens.',
  'An API key acts as the account’s first admin (the admin user with the lowest id): that user is recorded where a route stores an author (createdBy, publishedBy, a notification’s creator). An account with no admin user left gets 403 on such writes by key.',
  'A key scoped to deployments acts only inside them: other deployments are 403 `KEY_SCOPE` (another account’s are 404), and account-wide actions (users, access tokens, API keys, creating a deployment) are 403 `KEY_SCOPE`. `GET /api/v1/deployments` lists only its deployments.',
  'Every 429 answer carries `Retry-After` (seconds).',
  'API key `deploymentIds` must all be deployments of the account (else 404); they are stored deduplicated and sorted.',
  'Provisioning also takes `showDashboardChat` (account-wide default of the embedded chat, false when not sent: the chat is off unless the account or a session turns it on), `allowedEmbedOrigins` and `chatWebhookUrl`; the operator can `GET /admin/v1/accounts/{id}`.',
  '`storedBytesLimit` (bytes an account may store) and `sessionRateLimit` (generate-session requests per API key per minute) default to the plan: free 50 MiB / 60, starter 250 MiB / 300, premium 1 GiB / 1200, enterprise 4 GiB / 6000. The operator may set either at provisioning or by PATCH; changing `plan` keeps the stored values.',
  'A new account gets an admin user (`adminUsername` default `admin`) and an unscoped API key named "Default key".',
  '`chatWebhookUrl` must be an `https` URL of a public host when written (provisioning or PATCH): loopback, private, link-local and special-purpose addresses in any notation, `localhost` and single-label names are a 400. Deliveries check it again, for URLs stored before the rule.',
];
