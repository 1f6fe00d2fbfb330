// Where the command line finds the project's files, independent of the working directory.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root (two folders above src/cli). */
export const projectRoot = (): string => fileURLToPath(new URL('../../', import.meta.url));

/** The shipped models folder, overridable with TURNWISE_MODELS. */
export const modelsDir = (): string => process.env.TURNWISE_MODELS ?? join(projectRoot(), 'public', 'models');
