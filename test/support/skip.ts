// Skips that say why. scripts/test.ts prints every skipped test with its `skipReason` above the
// closing count, so a skip never vanishes silently. Two forms: options for `it.skipIf`/`describe.runIf`
// (the reason is known when the file is collected), and `skipNow` inside a test (known only once a
// hook or the test itself has tried, e.g. a mount in beforeAll).
import type { TestContext } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test is skipped where it is; read from vitest's JSON report by scripts/test.ts. */
    skipReason?: string;
  }
}

/** Test or suite options carrying the reason a conditional skip gives (suites pass it to their tests). */
export const because = (reason: string): { meta: { skipReason: string } } => ({ meta: { skipReason: reason } });

/** Skips the running test, recording the reason in its report entry. */
export function skipNow(ctx: TestContext, reason: string): never {
  ctx.task.meta.skipReason = reason;
  return ctx.skip(reason);
}
