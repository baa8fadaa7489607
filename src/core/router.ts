import { Hono } from 'hono';
import type { AppEnv } from './env';

/** A router of edgeboard's environment; every domain mounts one of these. */
export function createRouter() {
  return new Hono<AppEnv>();
}
