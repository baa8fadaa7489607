import { expect } from 'vitest';
import type { RenderInput } from '../../src/render/render.types';
import fixture from './fixtures/business-review.json';

/** The 20-widget sample dashboard (every widget type, charts with and without data). */
export const businessReview = fixture as unknown as Required<Pick<RenderInput, 'config' | 'reportSnapshots'>>;

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Checks the PNG signature and the IHDR chunk; returns the image size it declares. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe('IHDR');
  expect(new TextDecoder().decode(bytes.subarray(bytes.length - 8, bytes.length - 4))).toBe('IEND');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

type Widget = { id: string; type: string; position: { x: number; y: number; w: number; h: number } } & Record<
  string,
  unknown
>;

/** A config with the given widgets on a simple, easily computed grid. */
export function gridConfig(
  widgets: Widget[],
  layout: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    layout: { rowHeight: 100, margin: [10, 10], containerPadding: [20, 20], ...layout },
    widgets,
    ...extra,
  } as RenderInput['config'];
}
