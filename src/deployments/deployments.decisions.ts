/** Decisions about deployments and builds, recorded in the OpenAPI document. */
export const DEPLOYMENTS_DECISIONS = [
  'Deployment creation (E4) answers 201 and needs the admin role; reading deployments needs any user of the account.',
  'The deployment slug is the name made URL-safe plus a random 6-character suffix; it is unique worldwide.',
  'The starter project is `edgeboard.json` plus `model/README.md`; a build checks the config and that every file is a model file under the models folder.',
  'A build whose queue message was lost (still queued after a minute, or building for over ten minutes) is re-enqueued by the per-minute cron; the consumer claims a build once, so redeliveries build nothing twice.',
  "`GET /api/v1/regions` lists each provider's regions; `region` defaults to the first.",
];
