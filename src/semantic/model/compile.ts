import type { CompileResult, ModelFile } from './model.types';

/** Placeholder until the model compiler lands: every project compiles to an empty model. */
export function compileModel(_files: ModelFile[]): CompileResult {
  return { ok: true, model: { cubes: {}, views: {} } };
}
