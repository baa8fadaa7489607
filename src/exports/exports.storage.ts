import type { Bindings } from '../core/env';

/**
 * The files of finished exports, in R2 (the EXPORTS_BUCKET binding). R2 rather than KV: a file is
 * read right after the status says it is done, often from another location, and R2 answers a
 * read after a write everywhere at once, where KV may not for up to a minute; R2 also takes a
 * large PDF without a size limit to design around.
 */

/** Where a job's file is kept: under its account, named by its job id. */
export const fileKeyOf = (accountId: number, jobId: string, format: string): string =>
  `dashboard-exports/${accountId}/${jobId}.${format}`;

/** Stores a rendered file; its expiry rides along as metadata for whoever lists the bucket. */
export async function storeFile(
  env: Bindings,
  key: string,
  file: { bytes: Uint8Array; contentType: string },
  expiresAt: Date,
): Promise<void> {
  await env.EXPORTS_BUCKET.put(key, file.bytes, {
    httpMetadata: { contentType: file.contentType },
    customMetadata: { expiresAt: expiresAt.toISOString() },
  });
}

export async function readFile(env: Bindings, key: string): Promise<R2ObjectBody | null> {
  return env.EXPORTS_BUCKET.get(key);
}

/** Deletes files by key (one call; R2 takes up to 1000 keys). */
export async function deleteFiles(env: Bindings, keys: readonly string[]): Promise<void> {
  if (keys.length > 0) await env.EXPORTS_BUCKET.delete([...keys]);
}
