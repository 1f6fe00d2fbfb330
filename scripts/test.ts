// `npm test`: every check the project has, in order, with one closing count.
// Type checks (svelte-check, tsc), lint, the production build, vitest's unit suite in Node, and the
// browser suite in real headless Chromium. Each check counts as one test; each vitest test counts
// as one. The last line is `N passed, N failed` (CI reads it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { CHROMIUM_MISSING, locateChromium } from '../test/support/chromium.ts';

interface Tally {
  passed: number;
  failed: number;
}

const tally: Tally = { passed: 0, failed: 0 };
const failures: string[] = [];
const only = process.argv.slice(2); // e.g. `npm test -- unit` runs one step

function run(cmd: string, args: string[]): number {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  return r.status ?? 1;
}

function check(name: string, cmd: string, args: string[]): void {
  if (only.length && !only.includes(name)) return;
  process.stdout.write(`\n── ${name}: ${cmd} ${args.join(' ')}\n`);
  const code = run(cmd, args);
  if (code === 0) tally.passed++;
  else {
    tally.failed++;
    failures.push(name);
  }
}

function vitest(project: 'unit' | 'browser'): void {
  if (only.length && !only.includes(project)) return;
  const out = `test-results/${project}.json`;
  rmSync(out, { force: true });
  process.stdout.write(`\n── ${project} tests (vitest)\n`);
  const code = run('npx', ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
  let counted = false;
  try {
    const r = JSON.parse(readFileSync(out, 'utf8')) as { numPassedTests: number; numFailedTests: number; numTotalTests: number };
    tally.passed += r.numPassedTests;
    tally.failed += r.numFailedTests;
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
check('svelte-check', 'npx', ['svelte-check', '--tsconfig', './tsconfig.json', '--threshold', 'error', '--fail-on-warnings']);
check('tsc', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']);
check('lint', 'npx', ['eslint', '.']);
check('build', 'npx', ['vite', 'build', '--logLevel', 'warn']);
vitest('unit');
if (!only.length || only.includes('browser')) {
  if (locateChromium()) vitest('browser');
  else {
    process.stdout.write(`\n── browser tests: ${CHROMIUM_MISSING}\n`);
    tally.failed++;
    failures.push('browser: Chromium missing');
  }
}

if (failures.length) process.stdout.write(`\nFailed: ${failures.join('; ')}\n`);
process.stdout.write(`\n${tally.passed} passed, ${tally.failed} failed\n`);
process.exitCode = tally.failed > 0 ? 1 : 0;
