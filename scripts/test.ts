// `npm test`: every check the project has, with one closing count.
// Type checks (svelte-check, tsc), lint, formatting, unused and duplicate exports, file length, the
// production build, vitest's unit suite in Node, and the browser suite in real headless Chromium.
// Each check counts as one test; each vitest test counts as one; a vitest test that is skipped counts
// as skipped, and is listed with its reason (the `skipReason` its options or test/support/skip.ts
// gave it) above the closing line. The last line is `N passed, N failed, N skipped` (CI reads it).
//
// After the build, the browser suite runs beside the rest: it keeps about one core busy (one
// Chromium, SwiftShader or wasm), most of its time on the WebGPU training test, so the checks and the
// unit suite fill the other core at a lower priority (nice) that leaves the browser's waits as they
// are alone. Its output is printed whole when it ends. In sequence the suite took 20.5 min on the 2
// cores (2026-12-03), over the 15 the project allows; this way 12 min 36 s the same day.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { CHROMIUM_MISSING, locateChromium } from '../test/support/chromium.ts';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
const skips: string[] = []; // `project: full test name — reason`, one per skipped test
const only = process.argv.slice(2); // e.g. `npm test -- unit` runs one step

const env = { ...process.env, FORCE_COLOR: '0' };

/** Runs a step in the foreground, its output streamed; at a lower priority while the browser suite runs beside it. */
function run(cmd: string, args: string[], niced = false): number {
  const r = niced ? spawnSync('nice', ['-n', '10', cmd, ...args], { stdio: 'inherit', env }) : spawnSync(cmd, args, { stdio: 'inherit', env });
  return r.status ?? 1;
}

/** Starts a step in the background; resolves with its exit code and its whole output. */
function runBeside(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', (e) => chunks.push(Buffer.from(`${e.message}\n`)));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

function count(name: string, code: number): void {
  if (code === 0) tally.passed++;
  else {
    tally.failed++;
    failures.push(name);
  }
}

const wants = (step: string) => !only.length || only.includes(step);

function check(name: string, cmd: string, args: string[], niced = false): void {
  if (!wants(name)) return;
  process.stdout.write(`\n── ${name}: ${cmd} ${args.join(' ')}\n`);
  count(name, run(cmd, args, niced));
}

const report = (project: 'unit' | 'browser') => `test-results/${project}.json`;

function vitestArgs(project: 'unit' | 'browser'): string[] {
  rmSync(report(project), { force: true });
  return ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report(project)}`];
}

/** The part of vitest's JSON report read here (its reporter writes jest's layout). */
interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  testResults: {
    name: string;
    assertionResults: { fullName: string; status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo' | 'disabled'; meta?: { skipReason?: string } }[];
  }[];
}

/** Adds a vitest run's counts from its JSON report (each test one), or one failure when it left none. */
function tallyVitest(project: 'unit' | 'browser', code: number): void {
  let counted = false;
  try {
    const r = JSON.parse(readFileSync(report(project), 'utf8')) as VitestReport;
    tally.passed += r.numPassedTests;
    tally.failed += r.numFailedTests;
    for (const file of r.testResults) {
      for (const t of file.assertionResults) {
        if (t.status === 'passed' || t.status === 'failed') continue;
        tally.skipped++;
        const where = relative(process.cwd(), file.name);
        const reason = t.meta?.skipReason ?? (t.status === 'todo' ? 'todo' : 'no reason given');
        // a title that already says why (e.g. "… (skipped: python3 lacks …)") is not repeated
        skips.push(`${project}: ${where} › ${t.fullName}${t.fullName.includes(reason) ? '' : ` — ${reason}`}`);
      }
    }
    counted = true;
    if (r.numFailedTests > 0) failures.push(`${project}: ${r.numFailedTests} failed`);
  } catch {
    /* no report: the run itself failed (e.g. a file did not load) */
  }
  if (code !== 0 && (!counted || !failures.some((f) => f.startsWith(project)))) {
    tally.failed++;
    failures.push(`${project}: vitest exited with ${code}`);
  }
}

mkdirSync('test-results', { recursive: true });
check('build', 'npx', ['vite', 'build', '--logLevel', 'warn']);
let browser: Promise<{ code: number; output: string }> | null = null;
if (wants('browser')) {
  if (locateChromium()) browser = runBeside('npx', vitestArgs('browser'));
  else {
    process.stdout.write(`\n── browser tests: ${CHROMIUM_MISSING}\n`);
    tally.failed++;
    failures.push('browser: Chromium missing');
  }
}
const beside = browser !== null;
if (beside) process.stdout.write('\n── browser tests (vitest) started beside the rest; their output follows when they end\n');
check('svelte-check', 'npx', ['svelte-check', '--tsconfig', './tsconfig.json', '--threshold', 'error', '--fail-on-warnings'], beside);
check('tsc', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json'], beside);
check('lint', 'npx', ['eslint', '.'], beside);
check('format', 'npx', ['prettier', '--check', '.'], beside);
check('knip', 'npx', ['knip', '--no-progress'], beside);
check('duplicate-exports', 'npx', ['tsx', 'scripts/duplicateExports.ts'], beside);
check('file-length', 'npx', ['tsx', 'scripts/fileLength.ts'], beside);
if (wants('unit')) {
  process.stdout.write('\n── unit tests (vitest)\n');
  tallyVitest('unit', run('npx', vitestArgs('unit'), beside));
}
if (browser) {
  const { code, output } = await browser;
  process.stdout.write(`\n── browser tests (vitest)\n${output}`);
  tallyVitest('browser', code);
}

if (skips.length) process.stdout.write(`\nSkipped:\n${skips.map((s) => `  ${s}`).join('\n')}\n`);
if (failures.length) process.stdout.write(`\nFailed: ${failures.join('; ')}\n`);
process.stdout.write(`\n${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped\n`);
process.exitCode = tally.failed > 0 ? 1 : 0;
