/** Decisions about accounts and credentials, recorded in the OpenAPI document. */
export const ACCOUNTS_DECISIONS = [
  'Access tokens start with `eb_at_`, API keys with `eb_ak_`, so secret scanners can find them. Only their SHA-256 is stored; the secret is shown once; deleting one revokes it at once.',
  'A user may list, create and revoke their own access tokens; managing other users and their tokens needs the admin role.',
  'Management routes take Bearer only: an Api-Key there is a 401 (wrong scheme). Routes that take both say so.',
  'API key `deploymentIds` must all be deployments of the account (else 404); they are stored deduplicated and sorted.',
  'Provisioning also takes `showDashboardChat` (account-wide default of the embedded chat), `allowedEmbedOrigins` and `chatWebhookUrl`; the operator can `GET /admin/v1/accounts/{id}`.',
  'A new account gets an admin user (`adminUsername` default `admin`) and an unscoped API key named "Default key".',
];
