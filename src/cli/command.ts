// The shape every `turnwise` subcommand has, and the argument helpers they share.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** One subcommand: `turnwise <name> [options]`. */
export interface Command {
  name: string;
  /** One line for `turnwise --help`. */
  summary: string;
  /** Usage text for `turnwise <name> --help`. */
  usage: string;
  /** Runs with the arguments after the name; resolves with the exit code. */
  run(argv: string[]): Promise<number>;
}

/** Bad command-line input; main prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** A value that starts with a dash but is a number (`-1`, `-.5`, `-1e-3`, `-Infinity`), not an option. */
const NEGATIVE = /^-(\d|\.\d|Infinity$)/;

/**
 * Joins `--name -3` into `--name=-3` for string options: parseArgs calls a dash-led value
 * "ambiguous", so `--lr -1` failed with that instead of the option's own range message.
 */
export function joinNegatives(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : null;
    if (name !== null && options[name]?.type === 'string' && i + 1 < argv.length && NEGATIVE.test(argv[i + 1])) {
      out.push(`${a}=${argv[++i]}`);
    } else out.push(a);
  }
  return out;
}

/** node:util parseArgs with strict checking, turning its errors into UsageError. */
export function parseOptions<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({
      args: joinNegatives(argv, options),
      options: { ...options, help: { type: 'boolean' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Parses a numeric option, rejecting anything that is not a finite number within bounds. */
export function intOption(value: string | undefined, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in [${min}, ${max}], got "${value}"`);
  return n;
}

/** Parses a JSON-valued option; a value that is not JSON is refused as "--name must be <expected>". */
export function jsonOption(value: string, name: string, expected: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(`--${name} must be ${expected}`);
  }
}

/** Prints either JSON (with --json) or the human-readable text. */
export function report(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}
