/** Decisions about deployments and builds, recorded in the OpenAPI document. */
export const DEPLOYMENTS_DECISIONS = [
  'Deployment creation (E4) answers 200 (creates answer 200, as Cube documents) and needs the admin role (or an unscoped API key, recorded as the account’s first admin in `createdBy`); reading deployments needs any user of the account or a key within its scope.',
  'The stranded-builds sweep reads only unfinished builds, through partial indexes on queued and building builds: a tick costs the number of stranded builds, not the size of the table.',
  'The deployment slug is the name made URL-safe plus a random 6-character suffix; it is unique worldwide.',
  'The starter project is `edgeboard.json` plus `model/README.md`; a build checks the config and that every file is a model file under the models folder.',
  'A build whose queue message was lost (still queued after a minute, or building for over ten minutes) is re-enqueued by the per-minute cron; the consumer claims a build once, so redeliveries build nothing twice.',
  "`GET /api/v1/regions` lists each provider's regions; `region` defaults to the first.",
];
