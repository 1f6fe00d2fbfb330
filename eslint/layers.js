// The import boundaries of docs/architecture.md as one ESLint rule, so a backwards import fails CI.
// A source file may import its own layer and any layer listed before it in LAYERS; the forge (build
// time) is imported only by the CLI; the UI reaches ONNX Runtime's owner only through
// src/rl/runtime/api.ts; onnxruntime-* is imported only inside src/rl/runtime (docs/style.md point 5);
// a store's internal module is imported only inside its folder. Tests and benchmarks are not bound.
import path from 'node:path';

/** Lowest first. A layer may import itself and every layer before it. */
export const LAYERS = [
  'src/rl/util',
  'src/rl/envs',
  'src/rl/credit',
  'src/rl/model',
  'src/rl/bridge',
  'src/rl/store',
  'src/rl/runtime',
  'src/rl/rollout',
  'src/rl/algos',
  'src/rl/forge',
  'src/workers',
  'src/ui',
  'src/cli',
];

/** Layers that only the named ones may import (besides themselves). */
const ONLY_FROM = {
  'src/rl/forge': ['src/cli'],
  'src/ui': [],
};

/** What a layer may import from a lower one when it may not import all of it. */
const NARROW = {
  'src/ui': { 'src/rl/runtime': ['src/rl/runtime/api.ts'] },
};

/** Modules private to their folder. */
const INTERNAL = ['src/rl/store/db.ts'];

/** Packages only one layer may import. */
const PACKAGE_OWNER = { 'onnxruntime-web': 'src/rl/runtime', 'onnxruntime-node': 'src/rl/runtime' };

const within = (file, dir) => file === dir || file.startsWith(dir + '/');
const layerOf = (file) => LAYERS.find((l) => within(file, l));

/** Why `from` may not import `to` (both repository-relative), or null when it may. */
export function violation(from, to) {
  const a = layerOf(from);
  const b = layerOf(to);
  if (!a || !b) return null;
  for (const f of INTERNAL) if (to === f && !within(from, path.posix.dirname(f))) return `${f} is internal to ${path.posix.dirname(f)}`;
  if (a === b) return null;
  if (LAYERS.indexOf(b) > LAYERS.indexOf(a)) return `${a} may not import ${b}: imports point down the layers of docs/architecture.md (${b} sits above ${a})`;
  const only = ONLY_FROM[b];
  if (only && !only.includes(a))
    return only.length ? `${b} is imported only by ${only.join(', ')}; ${a} may not import it` : `${b} is imported by no other layer`;
  const narrow = NARROW[a]?.[b];
  if (narrow && !narrow.includes(to)) return `${a} imports ${b} only through ${narrow.join(', ')}`;
  return null;
}

/** Why `from` may not import the package `name`, or null. */
export function packageViolation(from, name) {
  const owner = PACKAGE_OWNER[name];
  if (!owner || !layerOf(from) || within(from, owner)) return null;
  return `${name} is imported only inside ${owner} (the one owner of ONNX Runtime)`;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: { type: 'problem', docs: { description: 'imports point one way through the layers of docs/architecture.md' }, schema: [] },
  create(context) {
    const cwd = context.cwd;
    const from = path.relative(cwd, context.filename).split(path.sep).join('/');
    if (!layerOf(from)) return {};
    const check = (node) => {
      const src = node.source;
      if (!src || src.type !== 'Literal' || typeof src.value !== 'string') return;
      const spec = src.value;
      let message;
      if (spec.startsWith('.')) {
        const to = path
          .relative(cwd, path.resolve(path.dirname(context.filename), spec))
          .split(path.sep)
          .join('/');
        message = violation(from, to.split('?')[0]);
      } else {
        message = packageViolation(from, spec.split('/')[0]);
      }
      if (message) context.report({ node: src, message });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { layers: rule } };
