/** The check moved to core (accounts validate the URL on write too); kept here for importers. */
export { webhookUrlProblem } from '../core/webhook-url';
