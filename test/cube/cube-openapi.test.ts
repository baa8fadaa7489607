import { describe, expect, it } from 'vitest';
import {
  cubeAnswerErrors,
  cubeDocument,
  cubeOperation,
  cubeOperations,
  findCubeOperation,
} from './cube-openapi';

/**
 * The helper that holds answers to Cube's published document (test/cube/cube-openapi.ts): it reads
 * the whole vendored document, finds operations as Cube names them, and refuses the answers Cube's
 * schemas refuse, so the checks the other files of this folder make cannot pass vacuously.
 */

const filter = (flags: Record<string, unknown>) => ({
  id: 1,
  dashboardId: 2,
  deploymentId: 3,
  cronExpression: '0 * * * *',
  timezone: 'UTC',
  isEnabled: true,
  humanReadableSchedule: 'Every hour',
  notificationEnabled: true,
  notificationFormat: 'png',
  notificationAiSummary: false,
  filters: [{ member: 'orders.status', operator: 'equals', value: 'shipped', ...flags }],
});

const folder = (dates: Record<string, unknown>) => ({
  id: 1,
  name: 'Sales',
  position: 0,
  deploymentId: 3,
  type: 'FOLDER',
  createdAt: '2026-05-01T12:00:00.000Z',
  updatedAt: '2026-05-01T12:00:00.000Z',
  ...dates,
});

describe("Cube's vendored document", () => {
  it('holds every operation, each with one operationId, a tag Cube lists and a 2xx answer', () => {
    expect(cubeDocument.openapi).toBe('3.1.0');
    expect(cubeOperations).toHaveLength(161);
    const ids = cubeOperations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(cubeDocument.tags.map((t) => t.name));
    for (const op of cubeOperations) {
      expect(tags.has(op.tag), `${op.operationId} tag ${op.tag}`).toBe(true);
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        op.operationId,
      ).toBe(true);
    }
  });

  it('finds an operation by id, by template, and by a concrete path (literal segments first)', () => {
    expect(cubeOperation('createUser')).toMatchObject({ method: 'POST', path: '/api/v1/users' });
    expect(cubeOperation({ method: 'put', path: '/api/v1/deployments/{deploymentId}' }).operationId).toBe(
      'updateDeployment',
    );
    expect(findCubeOperation('PUT', '/api/v1/deployments/7/workbooks/by-slug/sales?x=1')?.operationId).toBe(
      'upsertWorkbookBySlug',
    );
    expect(findCubeOperation('PUT', '/api/v1/deployments/7/workbooks/12')?.operationId).toBe(
      'updateWorkbook',
    );
    expect(findCubeOperation('GET', '/api/v1/users')).toBeUndefined();
    expect(() => cubeOperation('noSuchOperation')).toThrow(/no operation/);
  });
});

describe('answers held to Cube’s response schemas', () => {
  it("refuses a User without Cube's required isAdmin and notifications", () => {
    const errors = cubeAnswerErrors('createUser', {
      status: 200,
      body: { id: 1, email: 'a@b.co', username: 'a' },
    });
    expect(errors).toEqual([
      '(body): missing required property "isAdmin"',
      '(body): missing required property "notifications"',
    ]);
    expect(
      cubeAnswerErrors('createUser', {
        status: 200,
        body: { id: 1, email: 'a@b.co', username: 'a', isAdmin: false, notifications: {} },
      }),
    ).toEqual([]);
  });

  it('refuses a filter flag answered as null (Cube’s oneOf matches null twice), takes it set or left out', () => {
    for (const flag of ['caseSensitive', 'startInclusive', 'endInclusive']) {
      const errors = cubeAnswerErrors('getNotification', { status: 200, body: filter({ [flag]: null }) });
      expect(errors.join('\n')).toContain(`.filters[0].${flag}: null matches 2 options of oneOf`);
    }
    expect(cubeAnswerErrors('getNotification', { status: 200, body: filter({}) })).toEqual([]);
    expect(
      cubeAnswerErrors('getNotification', { status: 200, body: filter({ caseSensitive: true }) }),
    ).toEqual([]);
  });

  it('tells a date from a date-time, and refuses neither', () => {
    expect(cubeAnswerErrors('updateFolder', { status: 200, body: folder({}) })).toEqual([]);
    expect(
      cubeAnswerErrors('updateFolder', { status: 200, body: folder({ createdAt: '2026-05-01' }) }),
    ).toEqual([]);
    const errors = cubeAnswerErrors('updateFolder', {
      status: 200,
      body: folder({ updatedAt: 'yesterday' }),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\(body\)\.updatedAt: matches no option of oneOf/);
  });

  it('refuses wrong types, values outside an enum, and statuses Cube does not declare', () => {
    const deployment = { id: 1, name: 'x', deploymentUrl: 'https://x.example', creationStep: 'project' };
    expect(cubeAnswerErrors('getDeployment', { status: 200, body: deployment })).toEqual([]);
    expect(cubeAnswerErrors('getDeployment', { status: 200, body: { ...deployment, id: '1' } })).toEqual([
      '(body).id: expected integer, got "1"',
    ]);
    expect(
      cubeAnswerErrors('getDeployment', { status: 200, body: { ...deployment, creationStep: 'done' } }),
    ).toEqual([
      '(body).creationStep: "done" is not one of ["project","upload","schema","github","ssh","databases","ready","demo"]',
    ]);
    expect(cubeAnswerErrors('getDeployment', { status: 201, body: deployment })).toEqual([
      '201: Cube declares only 200 for getDeployment',
    ]);
    // A body Cube leaves undeclared (`application/json: {}`) takes anything.
    expect(cubeAnswerErrors('deleteWorkbook', { status: 200, body: { id: 1, deleted: true } })).toEqual([]);
  });
});
