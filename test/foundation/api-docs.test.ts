/// <reference types="vite/client" />
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { apiDocs, routeGroup } from '../../src/http/route';
import { api } from '../helpers/http';

// Every router's operations are documented in the Markdown file beside it (`*.routes.md`).
const markdownFiles = import.meta.glob<string>('../../src/**/*.routes.md', {
  query: '?raw',
  import: 'default',
  eager: true,
});

// The routers (and the route factories), to find each operationId where it is declared.
const routerFiles = import.meta.glob<string>('../../src/**/*routes.ts', {
  query: '?raw',
  import: 'default',
  eager: true,
});

type Operation = { operationId: string; summary: string; description?: string };

async function servedOperations(): Promise<Operation[]> {
  const res = await api('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  const paths = res.body.paths as Record<string, Record<string, Operation>>;
  return Object.values(paths).flatMap((item) => Object.values(item));
}

describe('the Markdown documentation of the routes', () => {
  it('documents every served operation exactly once, under its operationId', async () => {
    const operations = await servedOperations();
    const headings = Object.values(markdownFiles).flatMap((text) =>
      [...(text as string).matchAll(/^## (\w+): (.+)$/gm)].map(([, id = '', summary = '']) => ({
        id,
        summary,
      })),
    );
    expect(Object.keys(markdownFiles).length).toBeGreaterThanOrEqual(14);
    // No section is left over (a typo, or a route removed) and none is written twice.
    expect(headings.map((h) => h.id).sort()).toEqual(operations.map((op) => op.operationId).sort());
    const byId = new Map(operations.map((op) => [op.operationId, op]));
    for (const { id, summary } of headings) {
      if (!summary.includes('{{')) expect(byId.get(id)?.summary).toBe(summary);
    }
  });

  it('declares every served operationId literally in a router, so a search for it finds its route', async () => {
    const sources = Object.values(routerFiles).join('\n');
    const hidden = (await servedOperations())
      .map((op) => op.operationId)
      .filter((id) => !sources.includes(`'${id}'`));
    expect(hidden).toEqual([]);
  });

  it('serves a section’s text as the description, with the limits the code defines', async () => {
    const operations = await servedOperations();
    const addRecipients = operations.find((op) => op.operationId === 'addRecipients');
    expect(addRecipients?.description).toContain('at most 100 recipients');
    expect(addRecipients?.description).not.toContain('{{');
    const provision = operations.find((op) => op.operationId === 'provisionEmbedUsers');
    expect(provision?.summary).toBe(
      'Create or update up to 100 external users of a tenant, each as provisionEmbedUser',
    );
  });
});

describe('apiDocs', () => {
  it('reads `## operationId: Summary` sections and their descriptions, ignoring the introduction', () => {
    const docs = apiDocs(
      '# Title\n\nAn introduction.\n\n## getThing: Get a thing\n\nIt is {{MAX}} at most.\n\n## listThings: List things\n',
      {
        MAX: 7,
      },
    );
    expect(docs).toEqual({
      getThing: { summary: 'Get a thing', description: 'It is 7 at most.' },
      listThings: { summary: 'List things' },
    });
  });

  it('refuses a placeholder it is not given, a section written twice and a heading without a summary', () => {
    expect(() => apiDocs('## a: A\n\n{{NOPE}}\n')).toThrow('{{NOPE}} is not given');
    expect(() => apiDocs('## a: A\n\n## a: Again\n')).toThrow('section "a" appears twice');
    expect(() => apiDocs('## a\n\ntext\n')).toThrow('is not "## operationId: Summary"');
  });

  it('makes a route without a section an error when its module loads', () => {
    const route = routeGroup({ auth: 'user', tags: ['T'], docs: '## listThings: List things\n' });
    expect(
      route.get('/', 'listThings', { responses: { 200: v.object({}) }, handler: async () => ({}) }).summary,
    ).toBe('List things');
    expect(() =>
      route.get('/:id', 'getThing', { responses: { 200: v.object({}) }, handler: async () => ({}) }),
    ).toThrow('route GET /:id: no section "## getThing" in its docs');
  });
});
