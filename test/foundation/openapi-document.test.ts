import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http';

// The served document is OpenAPI 3.1 that generated clients take: Redocly's CLI lints it in
// `npm run lint` (scripts/openapi-lint.mjs); these tests pin, within the suite, the faults it
// once had: schemas named "0" … "3" and JSON Schema draft-07 tuples (`items` as an array).

type Json = any;
let document: Json;

beforeAll(async () => {
  const res = await api('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});

/** Every object of the document, with its JSON pointer. */
function* walk(value: Json, pointer = '#'): Generator<[string, Json]> {
  if (value === null || typeof value !== 'object') return;
  yield [pointer, value];
  for (const [key, child] of Object.entries(value)) {
    yield* walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  }
}

describe('the served OpenAPI document', () => {
  it('names every component schema, and every $ref reaches one', () => {
    const names = Object.keys(document.components.schemas);
    expect(names.filter((name) => !/^[A-Z][A-Za-z0-9]*$/.test(name))).toEqual([]);
    // The nested filters of Cube's query, by what they are: the list an `and`/`or` holds per depth.
    expect(names).toEqual(
      expect.arrayContaining([
        'CubeFilterGroup2',
        'CubeFilterGroup3',
        'CubeFilterGroup4',
        'CubeFilterGroup5',
      ]),
    );
    const unresolved = [...walk(document)]
      .map(([, node]) => node.$ref)
      .filter((ref): ref is string => typeof ref === 'string')
      .filter((ref) => {
        const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
        return !section || !name || !(name in (document.components[section] ?? {}));
      });
    expect([...new Set(unresolved)]).toEqual([]);
  });

  it('writes tuples as JSON Schema 2020-12 does (prefixItems), never items as an array', () => {
    const arrays = [...walk(document)]
      .filter(([, node]) => Array.isArray(node.items))
      .map(([pointer]) => pointer);
    expect(arrays).toEqual([]);
    // The body's query: a list of queries, or one query (the object).
    const query = document.paths['/cubejs-api/v1/load'].post.requestBody.content[
      'application/json'
    ].schema.properties.query.anyOf.find((option: Json) => option.type === 'object');
    const dateRange = query.properties.timeDimensions.items.properties.dateRange;
    const tuple = [...walk(dateRange)].find(([, node]) => node.prefixItems)?.[1];
    expect(tuple).toMatchObject({
      type: 'array',
      minItems: 2,
      prefixItems: [
        { type: 'string', maxLength: 64 },
        { type: 'string', maxLength: 64 },
      ],
    });
  });
});
