import { expect } from 'vitest';

/** A Cube schema type: a JSON type, or (an array of strings) one value of that enum. */
export type CubeType = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object' | readonly string[];

/** Every field Cube marks required is present with Cube's type. */
export function expectCube(body: Record<string, unknown>, required: Record<string, CubeType>) {
  for (const [field, type] of Object.entries(required)) {
    const value = body[field];
    if (Array.isArray(type)) expect(type, field).toContain(value);
    else if (type === 'integer') expect(Number.isInteger(value), field).toBe(true);
    else if (type === 'array') expect(Array.isArray(value), field).toBe(true);
    else if (type === 'object')
      expect(typeof value === 'object' && value !== null && !Array.isArray(value), field).toBe(true);
    else expect(typeof value, field).toBe(type);
  }
}

/** Cube's PageInfo: the two booleans are required; the cursors are string or null. */
export function expectPageInfo(pageInfo: Record<string, unknown>) {
  expectCube(pageInfo, { hasNextPage: 'boolean', hasPreviousPage: 'boolean' });
  for (const cursor of ['startCursor', 'endCursor']) {
    if (pageInfo[cursor] !== undefined && pageInfo[cursor] !== null)
      expect(typeof pageInfo[cursor]).toBe('string');
  }
}
