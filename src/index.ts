import { createWorker } from './worker';

/** The Worker on the deployed platform: the system clock and the environment's bindings. */
export default createWorker();

/** The Durable Object class of each deployment's embedded data store (binding DEPLOYMENT_STORE). */
export { DeploymentStore } from './sources/deployment-store';
