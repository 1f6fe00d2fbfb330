// The Node command line over the same src/rl code the lab runs in the browser. Each subcommand
// lives in src/cli/commands/<name>.ts and is listed here; `--json` makes every one machine-readable.
import { UsageError, type Command } from './command.ts';
import { doctor } from './commands/doctor.ts';
import { bench } from './commands/bench.ts';
import { tasks } from './commands/tasks.ts';
import { evalCommand } from './commands/eval.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { forge } from './commands/forge.ts';
import { exportModel } from './commands/export-model.ts';
import { generate } from './commands/generate.ts';
import { train } from './commands/train.ts';
import { credit } from './commands/credit.ts';
import { creditReport } from './commands/credit-report.ts';
import { passkt } from './commands/passkt.ts';

export const COMMANDS: Command[] = [doctor, bench, tasks, evalCommand];
COMMANDS.push(exportCommand, importCommand);
COMMANDS.push(forge);
COMMANDS.push(exportModel);
COMMANDS.push(generate);
COMMANDS.push(train);
COMMANDS.push(credit, creditReport, passkt);

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'turnwise — a lab for multi-turn reinforcement learning of language-model agents',
    '',
    'Usage: npx turnwise <command> [options]   (add --json for machine-readable output)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `npx turnwise <command> --help` for the options of one command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    if (rest.includes('--json'))
      process.stdout.write(
        `${JSON.stringify({ ok: false, command: name, error: { kind: 'usage', name: 'UsageError', message: `unknown command "${name}"` } }, null, 2)}\n`,
      );
    else process.stderr.write(`turnwise: unknown command "${name}"\n\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    const err = e as Error;
    const usage = err instanceof UsageError;
    // under --json a failure is JSON on stdout too, so a script reading it never gets plain text
    if (rest.includes('--json')) {
      process.stdout.write(
        `${JSON.stringify({ ok: false, command: name, error: { kind: usage ? 'usage' : 'error', name: err.name, message: err.message } }, null, 2)}\n`,
      );
    } else if (usage) process.stderr.write(`turnwise ${name}: ${err.message}\n\n${command.usage}\n`);
    else process.stderr.write(`turnwise ${name}: ${err.name}: ${err.message}\n`);
    return usage ? 2 : 1;
  }
}
