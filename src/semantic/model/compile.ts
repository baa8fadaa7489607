import type { Node } from 'yaml';
import { checkCubes } from './cube-checks';
import { type CubeDraft, readCube } from './cubes';
import type { CompiledModel, CompileResult, ModelFile, SourcePosition, View } from './model.types';
import { resolvePreAggregations } from './pre-aggregations';
import { readView } from './views';
import { ErrorList, YamlFile } from './yaml-reader';

/** The most cubes and views, together, one model may define. */
export const MAX_DEFINITIONS = 500;

const TOP_LEVEL_KEYS = { allowed: ['cubes', 'views'] };

/** Whether a project file is a model file: YAML under `model/`. */
export function isModelFile(path: string): boolean {
  return path.startsWith('model/') && /\.ya?ml$/.test(path);
}

/**
 * Compiles a deployment's project files into a model. Only YAML files under `model/` are read;
 * each may hold `cubes:` and `views:` lists. Every error found is reported (up to 50), each with
 * its file, line and column; a YAML syntax error stops the compile after parsing, since what
 * follows would only repeat it.
 */
export function compileModel(files: ModelFile[]): CompileResult {
  const errors = new ErrorList();
  const parsed = files
    .filter((file) => isModelFile(file.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) => YamlFile.parse(file, errors))
    .filter((file): file is YamlFile => file !== null);
  if (errors.count > 0) return { ok: false, errors: errors.errors };

  const cubeNodes: { file: YamlFile; node: Node }[] = [];
  const viewNodes: { file: YamlFile; node: Node }[] = [];
  for (const file of parsed) {
    const root = file.root;
    if (root === null) continue;
    const fields = file.mapping(root, `${file.path}`, TOP_LEVEL_KEYS);
    for (const node of fields?.sequence('cubes') ?? []) cubeNodes.push({ file, node });
    for (const node of fields?.sequence('views') ?? []) viewNodes.push({ file, node });
  }
  if (cubeNodes.length + viewNodes.length > MAX_DEFINITIONS) {
    errors.add(
      `the model defines ${cubeNodes.length} cubes and ${viewNodes.length} views; at most ${MAX_DEFINITIONS} in all are allowed`,
      null,
    );
    return { ok: false, errors: errors.errors };
  }

  const defined = new Map<string, SourcePosition>();
  const claim = (kind: string, name: string, position: SourcePosition): boolean => {
    const first = defined.get(name);
    if (first) {
      errors.add(
        `${kind} "${name}" is already defined at ${first.file}:${first.line} (cube and view names share one namespace)`,
        position,
      );
      return false;
    }
    defined.set(name, position);
    return true;
  };

  const drafts = new Map<string, CubeDraft>();
  for (const { file, node } of cubeNodes) {
    const draft = readCube(file, node);
    if (draft && claim('cube', draft.cube.name, draft.cube.position)) drafts.set(draft.cube.name, draft);
  }
  const cubes = new Map([...drafts].map(([name, draft]) => [name, draft.cube]));
  const views: Record<string, View> = {};
  for (const { file, node } of viewNodes) {
    const view = readView(file, node, cubes);
    if (view && claim('view', view.name, view.position)) views[view.name] = view;
  }
  checkCubes(drafts, new Set(Object.keys(views)), errors);
  resolvePreAggregations(drafts, errors);

  if (errors.count > 0) return { ok: false, errors: errors.errors };
  const model: CompiledModel = { cubes: Object.fromEntries(cubes), views };
  return { ok: true, model };
}
