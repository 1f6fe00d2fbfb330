// The CLI's side of the policy-fit check (src/rl/rollout/policyFit.ts): a command that would play the
// policy on a task whose prompt does not fit its context fails before any episode, with the check's
// words and exit code 2 (a request the model cannot serve), instead of an engine error mid-run.
import { UsageError } from './command.ts';
import type { TaskSpec } from '../rl/envs/types.ts';
import { assertPolicyTakes, type PolicyFitOptions, type PromptCounter } from '../rl/rollout/policyFit.ts';

/** Throws UsageError with the check's reason unless the loaded policy can take every task of `specs`. */
export async function ensurePolicyTakes(engine: PromptCounter, specs: readonly TaskSpec[], opts: PolicyFitOptions = {}): Promise<void> {
  try {
    await assertPolicyTakes(engine, specs, opts);
  } catch (e) {
    if ((e as Error).name === 'PolicyFitError')
      throw new UsageError(`${(e as Error).message}; play it with a scripted agent (--agent expert|noisy|random) or a policy forged with a longer context`);
    throw e;
  }
}
