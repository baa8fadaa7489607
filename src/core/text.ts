/** Text helpers more than one domain needs: slugs, base64, HTML/XML escaping. */

/** A name as a URL slug: lowercase `a-z0-9-`, at most 40 characters. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
}

/** Standard base64 (with padding) of bytes of any size. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** URL-safe base64 without padding (tokens, ids). */
export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(input: string): Uint8Array {
  const s = atob(input.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Text safe inside HTML or XML element content and quoted attribute values. */
export function escapeMarkup(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * `bytes` as text, or null when they are not UTF-8: a lenient decode would keep U+FFFD for each
 * bad byte, so what was stored would not be what was sent. The decoder keeps no state between
 * calls, so one serves every request.
 */
export function strictUtf8(bytes: ArrayBuffer): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Whether `text` is a decimal number as PostgreSQL reads one for a numeric type: a sign, digits
 * with an optional point, an exponent, and spaces around it (`' 12.50 '`, `-.5`, `1e3`).
 */
export function isDecimalText(text: string): boolean {
  return DECIMAL.test(text);
}

const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
