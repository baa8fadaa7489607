import type { Fields } from './yaml-reader';

/** Names of cubes, views and members: SQL-safe identifiers, as in Cube. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_NAME_LENGTH = 64;

/** Reads the required `name` of a definition and checks it is an identifier of bounded length. */
export function readName(fields: Fields): string | undefined {
  const name = fields.string('name', true);
  if (name === undefined) return undefined;
  if (!IDENTIFIER.test(name)) {
    fields.error('name', `name "${name}" must start with a letter or _ and hold only letters, digits and _`);
    return undefined;
  }
  if (name.length > MAX_NAME_LENGTH) {
    fields.error('name', `name "${name}" is longer than ${MAX_NAME_LENGTH} characters`);
    return undefined;
  }
  return name;
}

/**
 * The title Cube derives from a name when none is given: words split at `_` and at lower-to-upper
 * case changes, each capitalised (`total_amount` → `Total Amount`, `lineItems` → `Line Items`).
 */
export function titleFromName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_\s]+/)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
}

/** Cube's `public`, with its legacy spelling `shown`; true unless said otherwise. */
export function readPublic(fields: Fields): boolean {
  const isPublic = fields.boolean('public');
  const shown = fields.boolean('shown');
  if (fields.has('public') && fields.has('shown'))
    fields.error('shown', 'give public or shown (its old name), not both');
  return isPublic ?? shown ?? true;
}
