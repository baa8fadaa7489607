import { describe, expect, it } from 'vitest';
import { api, workerFetch } from '../helpers/http';

// The bare origin is the URL `npm start` prints: a person opening it lands on the API reference,
// and the icon every browser asks for exists.
describe('the bare origin', () => {
  it('redirects / to the API reference', async () => {
    const res = await workerFetch('http://edgeboard.test/', { redirect: 'manual' });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/docs');
    const followed = await api('GET', '/');
    expect(followed.status).toBe(200);
    expect(followed.body).toContain('edgeboard API reference');
  });

  it('serves /favicon.ico as a 16×16 ICO image', async () => {
    const res = await api<Uint8Array>('GET', '/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toContain('max-age=');
    const view = new DataView(res.body.buffer, res.body.byteOffset, res.body.byteLength);
    // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 16×16, 32 bits, data after the entry.
    expect([view.getUint16(0, true), view.getUint16(2, true), view.getUint16(4, true)]).toEqual([0, 1, 1]);
    expect([res.body[6], res.body[7], view.getUint16(12, true)]).toEqual([16, 16, 32]);
    expect(view.getUint32(18, true)).toBe(22);
    expect(view.getUint32(14, true)).toBe(res.body.byteLength - 22);
    // The image is opaque except its four corners.
    const alpha = (x: number, row: number) => res.body[62 + (row * 16 + x) * 4 + 3];
    expect([alpha(0, 0), alpha(15, 15), alpha(8, 8)]).toEqual([0, 0, 255]);
  });

  it('is still a 404 in the error envelope for an unknown path', async () => {
    const res = await api('GET', '/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
