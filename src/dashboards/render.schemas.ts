import * as v from 'valibot';
import { obj } from '../core/validation';
import { controlParams } from './controls.schemas';

export const RENDER_FORMATS = ['png', 'pdf'] as const;
export const RENDER_VERSIONS = ['published', 'draft'] as const;

const width = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, 'Expected an integer number of pixels'),
  v.transform(Number),
  v.minValue(320),
  v.maxValue(2560),
);

export const renderQuery = obj({
  format: v.optional(v.picklist(RENDER_FORMATS), 'png'),
  version: v.optional(v.picklist(RENDER_VERSIONS), 'published'),
  width: v.optional(width),
  ...controlParams,
});

export type RenderQuery = v.InferOutput<typeof renderQuery>;
