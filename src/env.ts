// The Worker's environment lives in core, below every folder that reads it.
export type { AppEnv, Bindings, BuildMessage, Db, NotificationMessage, Variables } from './core/env';
