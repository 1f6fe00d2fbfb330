// `turnwise doctor`: what this machine offers Turnwise — Node, the ONNX Runtime backends (each proven
// by running the probe graph against its reference), the shipped models, package versions.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseOptions, report, type Command } from '../command.ts';
import { PolicyEngine, type SelfTestResult } from '../../rl/runtime/policyEngine.ts';
import { verifyModels, type ReadBytes } from '../../rl/model/manifest.ts';
import { modelsDir, projectRoot } from '../paths.ts';

interface BackendCheck {
  backend: 'wasm' | 'node';
  available: boolean;
  selfTest?: SelfTestResult;
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

/** Reads files of the models folder from disk; null when absent. */
function diskReader(dir: string): ReadBytes {
  return (p) =>
    readFile(join(dir, p)).then(
      (b) => new Uint8Array(b),
      () => null,
    );
}

async function versions(): Promise<Record<string, string>> {
  const out: Record<string, string> = { node: process.versions.node };
  for (const pkg of ['onnxruntime-web', 'onnxruntime-node', 'onnx-proto', 'svelte', 'vite', 'comlink', 'idb']) {
    // Read package.json from disk: some packages' export maps hide it from require.
    const text = await readFile(join(projectRoot(), 'node_modules', pkg, 'package.json'), 'utf8').catch(() => null);
    out[pkg] = text ? (JSON.parse(text) as { version: string }).version : 'not installed';
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
    const dir = modelsDir();
    const models = { dir, ...(await verifyModels(diskReader(dir))) };
    const result = { node: process.version, backends, models, versions: await versions() };
    // healthy: a backend passes its probe and every shipped model file matches its sha256
    const ok = backends.some((b) => b.available && b.selfTest?.ok) && models.found;
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
        `versions: ${Object.entries(result.versions)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      ].join('\n'),
    );
    return ok ? 0 : 1;
  },
};
