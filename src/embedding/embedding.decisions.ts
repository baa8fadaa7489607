/** Decisions about signed embedding (E8–E14), recorded in the OpenAPI document. */
export const EMBEDDING_DECISIONS = [
  'The account-wide catalogue (`/api/v1/groups`, `/api/v1/user-attributes`) and E10–E14 take an admin Bearer token or any API key of the account (scoped or not: tenants and catalogues belong to the account, not to a deployment).',
  'E10 creates the embed tenant when it does not exist yet, so groups can be prepared before a first session; listing, updating or deleting in an unknown tenant is a 404.',
  'Group PATCH (account-wide and E12) also takes `name` (1–100 characters, unique in its catalogue, else 409); at least one of `name`, `description` is required.',
  'Embed tenants are listed as `{id, name, createdAt}`, oldest first.',
  'Lists of groups, attributes and tenants are ordered by id (creation order).',
];
