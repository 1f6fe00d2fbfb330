// `turnwise tasks`: the task families with their defaults and split sizes, or one task's prompt and
// hidden information (--family F [--split S] [--seed N]).
import { intOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import type { Split } from '../../rl/envs/types.ts';
import { FAMILIES, createEnv, FAMILY_NAMES, type FamilyName } from '../../rl/envs/registry.ts';

export const tasks: Command = {
  name: 'tasks',
  summary: 'list the task families (defaults, splits, sizes) or show one task',
  usage: [
    'Usage: npx turnwise tasks [--json]',
    '       npx turnwise tasks --family F [--split train|test] [--seed N] [--json]',
    '',
    `Families: ${FAMILY_NAMES.join(', ')}. With --family, prints the prompt the agent sees and the hidden information.`,
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, { family: { type: 'string' }, split: { type: 'string' }, seed: { type: 'string' } });
    const json = !!values.json;
    if (values.family !== undefined) {
      if (!(FAMILY_NAMES as readonly string[]).includes(values.family))
        throw new UsageError(`unknown family "${values.family}" (known: ${FAMILY_NAMES.join(', ')})`);
      const split = (values.split ?? 'test') as Split;
      if (split !== 'train' && split !== 'test') throw new UsageError(`--split must be train or test, got "${values.split}"`);
      const task = createEnv(values.family as FamilyName).reset({ family: values.family as FamilyName, split, seed: intOption(values.seed, 'seed', 0) });
      report(json, task, () => `${task.prompt}\n\nT = ${task.maxTurns}; key ${task.key}\nhidden: ${JSON.stringify(task.hidden)}`);
      return 0;
    }
    const rows = FAMILY_NAMES.map((name) => {
      const f = FAMILIES[name];
      const perSplit = Math.round(f.distinctEpisodes / 2);
      return {
        name,
        description: f.description,
        collaborative: f.collaborative,
        maxTurns: f.defaults.maxTurns,
        defaults: f.defaults,
        splits: { train: { distinctEpisodes: perSplit }, test: { distinctEpisodes: perSplit } },
      };
    });
    report(json, { families: rows, splits: ['train', 'test'] }, () =>
      rows
        .map(
          (r) => `${r.name.padEnd(10)} T=${String(r.maxTurns).padEnd(3)} ~${r.splits.test.distinctEpisodes.toExponential(1)} episodes/split  ${r.description}`,
        )
        .join('\n'),
    );
    return 0;
  },
};
