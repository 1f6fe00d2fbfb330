// `turnwise doctor`: what this machine offers Turnwise — Node, the ONNX Runtime backends (each proven
// by running the probe graph against its reference), the shipped models, package versions.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseOptions, report, type Command } from '../command.ts';
import { PolicyEngine, type SelfTestResult } from '../../rl/runtime/policyEngine.ts';
import { parseManifest, readVerified } from '../../rl/model/manifest.ts';
import { modelsDir } from '../paths.ts';

interface BackendCheck {
  backend: 'wasm' | 'node';
  available: boolean;
  selfTest?: SelfTestResult;
  error?: string;
}

interface ModelsCheck {
  dir: string;
  found: boolean;
  models: { name: string; files: number; bytes: number }[];
  error?: string;
}

async function checkBackend(backend: 'wasm' | 'node'): Promise<BackendCheck> {
  const engine = new PolicyEngine();
  try {
    const info = await engine.init(backend);
    if (info.kind !== backend) return { backend, available: false, error: info.reason };
    return { backend, available: true, selfTest: await engine.selfTest() };
  } catch (e) {
    return { backend, available: false, error: (e as Error).message };
  } finally {
    await engine.dispose();
  }
}

async function checkModels(dir: string): Promise<ModelsCheck> {
  let text: string;
  try {
    text = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch {
    return { dir, found: false, models: [], error: `no manifest.json in ${dir} (run npm run forge)` };
  }
  try {
    const manifest = parseManifest(text, join(dir, 'manifest.json'));
    const read = async (p: string) => readFile(join(dir, p)).then((b) => new Uint8Array(b), () => null);
    const models = [];
    for (const [name, model] of Object.entries(manifest.models)) {
      for (const f of model.files) await readVerified(read, f);
      models.push({ name, files: model.files.length, bytes: model.files.reduce((a, f) => a + f.bytes, 0) });
    }
    return { dir, found: true, models };
  } catch (e) {
    return { dir, found: false, models: [], error: (e as Error).message };
  }
}

function versions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const out: Record<string, string> = { node: process.versions.node };
  for (const pkg of ['onnxruntime-web', 'onnxruntime-node', 'onnx-proto', 'svelte', 'vite', 'comlink', 'idb']) {
    try {
      out[pkg] = (require(`${pkg}/package.json`) as { version: string }).version;
    } catch {
      out[pkg] = 'not installed';
    }
  }
  return out;
}

export const doctor: Command = {
  name: 'doctor',
  summary: 'check Node, the ONNX Runtime backends, the shipped models and versions',
  usage: 'Usage: npx turnwise doctor [--json]\n\nRuns the probe graph on each backend and verifies public/models against its manifest.',
  async run(argv) {
    const { values } = parseOptions(argv, {});
    const backends = [await checkBackend('wasm'), await checkBackend('node')];
    const models = await checkModels(modelsDir());
    const result = { node: process.version, backends, models, versions: versions() };
    const ok = backends.some((b) => b.available && b.selfTest?.ok);
    report(!!values.json, result, () =>
      [
        `Node ${process.version}`,
        ...backends.map((b) =>
          b.available
            ? `backend ${b.backend}: ok — probe graph error ${b.selfTest!.maxAbsError.toExponential(1)} (${b.selfTest!.ok ? 'pass' : 'FAIL'})`
            : `backend ${b.backend}: unavailable — ${b.error}`,
        ),
        models.found
          ? `models: ${models.models.map((m) => `${m.name} (${m.files} files, ${(m.bytes / 1e6).toFixed(2)} MB)`).join(', ')}`
          : `models: none — ${models.error}`,
        `versions: ${Object.entries(result.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      ].join('\n'),
    );
    return ok ? 0 : 1;
  },
};
