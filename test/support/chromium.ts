// Finds the Chromium binary for browser tests: CHROME_PATH, else the usual names on PATH.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHROMIUM_MISSING =
  'Chromium was not found. Install it with `sudo apt-get install chromium` (Debian/Ubuntu) or set CHROME_PATH to a Chromium or Chrome binary.';

/** The Chromium executable, or null when there is none. */
export function locateChromium(): string | null {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}
