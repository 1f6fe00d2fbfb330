// The Credit view and `turnwise credit` read stored episodes through one function
// (rollout/stored.ts readStored + storedCredit): the same Turnwise JSONL fixture, imported into a
// store as the lab's import dialog does and read by the Credit view's model (ui/state/creditModel.ts),
// gives exactly the credit `turnwise credit --json` prints, estimator by estimator and turn by turn.
// The fixture (test/fixtures/credit/guess.turnwise.jsonl: 6 noisy-expert guess episodes, 2 tasks ×
// 3, seed 1, from rollout + storeSink) was edited by hand where the two readers used to differ: ep-2
// has a reward of 0.5 on a collaborator reply (credited to the agent turn before it), and ep-7 has
// turnCost 0.02, so it is not in the group of the other seed-2 episodes.
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credit } from '../../../src/cli/commands/credit.ts';
import { importFile, textSource, TrajectoryStore } from '../../../src/rl/store/index.ts';
import { listedEpisodes, listedFidelity, openListed } from '../../../src/ui/state/creditModel.ts';
import { tokenStrips } from '../../../src/ui/state/tokenStrips.ts';
import { capture } from '../capture.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/credit/guess.turnwise.jsonl');

interface CreditOut {
  episodes: { id: string; rewards: number[]; credit: Record<string, number[]> }[];
}

describe('Credit view state = turnwise credit --json on the same file', () => {
  it('mc and grpo, every episode, every turn', async () => {
    const { code, out } = await capture(() => credit.run(['--in', FIXTURE, '--estimators', 'mc,grpo', '--json']));
    expect(code).toBe(0);
    const cli = (JSON.parse(out) as CreditOut).episodes;
    expect(cli.length).toBe(6);

    const store = await TrajectoryStore.open({ name: `credit-model-${process.pid}-${Date.now()}` });
    const { report } = await importFile(store, textSource(readFileSync(FIXTURE, 'utf8')), { format: 'turnwise', source: 'fixture' });
    expect(report.errors).toEqual([]);
    const listed = await listedEpisodes(store, '');
    expect(listed.map((e) => e.id).sort()).toEqual(cli.map((e) => e.id).sort());
    for (const row of cli) {
      const opened = await openListed(store, listed, row.id);
      expect(opened).not.toBeNull();
      // GRPO over a group of one is 0 by construction: left out, with the reason
      const alone = row.id === 'ep-7'; // the fixture's one episode with no other of its task
      expect(opened!.rows.map((r) => r.name)).toEqual(alone ? ['mc'] : ['mc', 'grpo']);
      expect(opened!.hidden.map((h) => h.label)).toEqual(alone ? ['GRPO'] : []);
      for (const r of opened!.rows)
        expect({ id: row.id, name: r.name, values: Array.from(r.values) }).toEqual({ id: row.id, name: r.name, values: row.credit[r.name] });
    }
    // the hand edits are read the same way by both
    const ep2 = cli.find((e) => e.id === 'ep-2')!;
    expect(ep2.rewards[0]).toBeCloseTo(0.49, 6);
    expect(cli.find((e) => e.id === 'ep-7')!.credit.grpo.every((a) => a === 0)).toBe(true);
    expect((await openListed(store, listed, 'ep-7'))!.hidden).toEqual([
      { label: 'GRPO', reason: 'needs other episodes of this task to compare with (none is stored), so it is 0 on every turn' },
    ]);
    expect((await openListed(store, listed, 'ep-5'))!.rows[1].label).toBe('GRPO (group of 2)');
    const fidelity = await listedFidelity(store, listed);
    expect(fidelity.report?.rows.map((r) => r.estimator)).toEqual(['mc', 'grpo']);
    store.close();
  });

  it('lists the credit stored with an episode (Play live rows, thumbs) beside what it recomputes', async () => {
    const store = await TrajectoryStore.open({ name: `credit-model-live-${process.pid}-${Date.now()}` });
    await importFile(store, textSource(readFileSync(FIXTURE, 'utf8')), { format: 'turnwise', source: 'fixture' });
    const listed = await listedEpisodes(store, '');
    const id = listed[0].id;
    const before = (await openListed(store, listed, id))!;
    const turns = before.actions.length;
    // per record: system, then (agent, reply) per turn; the agent records carry the values
    const perRecord = (perTurn: number[]) => [Number.NaN, ...perTurn.flatMap((v) => [v, Number.NaN])];
    const gae = Array.from({ length: turns }, (_, t) => 0.1 * (t + 1));
    await store.putCredit(id, { estimator: 'gae', version: 'live', params: { gamma: 1, lambda: 0.95 }, values: perRecord(gae) });
    await store.putCredit(id, { estimator: 'human-feedback', version: 'person', values: perRecord(gae.map((_, t) => (t === 0 ? 1 : Number.NaN))) });
    await store.putCredit(id, { estimator: 'gae', version: 'some-export', values: perRecord(gae) }); // not Play's: left out
    const after = (await openListed(store, listed, id))!;
    expect(after.rows.map((r) => r.label)).toEqual([...before.rows.map((r) => r.label), 'GAE (turn) (as played)', 'thumbs (person)']);
    const row = (label: string) => after.rows.find((r) => r.label === label)!;
    expect(Array.from(row('GAE (turn) (as played)').values)).toEqual(gae.map((v) => expect.closeTo(v, 6)));
    expect(Array.from(row('thumbs (person)').values).map((v) => (Number.isNaN(v) ? null : v))).toEqual(gae.map((_, t) => (t === 0 ? 1 : null)));
    store.close();
  });

  it('recomputes GAE, bi-level GAE and SWEET-RL (per token too) from stored critic scores, with the view’s parameters', async () => {
    const store = await TrajectoryStore.open({ name: `credit-model-scores-${process.pid}-${Date.now()}` });
    await importFile(store, textSource(readFileSync(FIXTURE, 'utf8')), { format: 'turnwise', source: 'fixture' });
    const listed = await listedEpisodes(store, '');
    const [id, other] = [listed[0].id, listed[1].id];
    const T = (await openListed(store, listed, id))!.actions.length;
    // two tokens per turn; the critic finds each turn's second token 0.5 nats likelier than its reference does
    const offsets = Array.from({ length: T + 1 }, (_, t) => 2 * t);
    const critic = Array.from({ length: 2 * T }, (_, k) => (k % 2 ? -1 : -2));
    const ref = Array.from({ length: 2 * T }, (_, k) => (k % 2 ? -1.5 : -2));
    await store.putCriticScores(id, {
      version: 'critic@a1',
      values: [...Array.from({ length: T }, (_, t) => 0.5 - 0.1 * t), 0],
      tokenOffsets: offsets,
      tokens: critic.map(() => 7),
      tokenText: critic.map((_, k) => (k % 2 ? ' b' : 'a')),
      tokenValues: critic.map((_, k) => 0.1 * k),
      criticLogprobs: critic,
      refLogprobs: ref,
    });
    // K = 0: SWEET-RL's raw log-ratio, said so
    const o = (await openListed(store, listed, id, { sweet: { beta: 2 } }, { k: 0 }))!;
    const grouped = !o.hidden.some((h) => h.label.startsWith('GRPO')); // GRPO shows when the fixture stores other episodes of the task
    expect(o.rows.map((r) => r.label)).toEqual([
      'MC return',
      ...(grouped ? [expect.stringMatching(/^GRPO/)] : []),
      'GAE (turn) (recomputed)',
      'Bi-level GAE (recomputed)',
      'SWEET-RL, uncentred (raw log-ratio) (recomputed)',
    ]);
    expect(o.tokens).toEqual({ offsets, text: critic.map((_, k) => (k % 2 ? ' b' : 'a')), version: 'critic@a1' });
    const at = (label: string, opened = o) => opened.rows.find((r) => r.label === label)!;
    const sweet = at('SWEET-RL, uncentred (raw log-ratio) (recomputed)');
    expect(sweet.paramText).toBe('β 2');
    expect(Array.from(sweet.perToken!)).toEqual(critic.map((_, k) => (k % 2 ? 1 : 0))); // β (log π_critic − log π_ref)
    expect(Array.from(sweet.values)).toEqual(Array(T).fill(0.5)); // their mean per turn
    expect(at('Bi-level GAE (recomputed)').perToken).toHaveLength(2 * T);
    expect(at('GAE (turn) (recomputed)').perToken).toBeUndefined();
    // other parameters, other numbers: GAE with λ = 0 is the one-step TD error r_t + V(s_{t+1}) − V(s_t)
    const td = at('GAE (turn) (recomputed)', (await openListed(store, listed, id, { gae: { gamma: 1, lambda: 0 } }))!);
    const rewards = at('MC return').values; // MC with γ = 1 at the last turn is r_{T−1}
    expect(td.values[T - 1]).toBeCloseTo(rewards[T - 1] - (0.5 - 0.1 * (T - 1)), 6);
    // an episode stored without scores gets no critic rows and no tokens
    const plain = (await openListed(store, listed, other))!;
    expect(plain.tokens).toBeNull();
    expect(plain.rows.map((r) => r.name).filter((n) => n !== 'grpo')).toEqual(['mc']);
    store.close();
  });

  it('centres SWEET-RL at each state over K candidates (the strip agrees with the bar), and a per-state constant leaves it unchanged', async () => {
    const store = await TrajectoryStore.open({ name: `credit-model-centred-${process.pid}-${Date.now()}` });
    await importFile(store, textSource(readFileSync(FIXTURE, 'utf8')), { format: 'turnwise', source: 'fixture' });
    const listed = await listedEpisodes(store, '');
    const id = listed[0].id;
    const T = (await openListed(store, listed, id))!.actions.length;
    // two tokens per turn, log-ratios 0 and 0.5 (A = 0.25 at β = 1); shifted: c_t added to every critic log-prob of turn t
    const offsets = Array.from({ length: T + 1 }, (_, t) => 2 * t);
    const c = (t: number) => 0.75 * (t + 1) - 2;
    const scores = (shift: (t: number) => number) => ({
      version: 'critic@a1',
      values: Array.from({ length: T + 1 }, () => 0),
      tokenOffsets: offsets,
      tokens: offsets.slice(1).flatMap(() => [7, 7]),
      tokenText: offsets.slice(1).flatMap(() => ['a', ' b']),
      tokenValues: null,
      criticLogprobs: offsets.slice(1).flatMap((_, t) => [-2 + shift(t), -1 + shift(t)]),
      refLogprobs: offsets.slice(1).flatMap(() => [-2, -1.5]),
    });
    await store.putCriticScores(id, scores(c));
    // K = 2 candidates per state with A (β = 1) 0.25t and −0.5: centred at β = 2, 2·0.25 − 2·(0.25t − 0.5)/2 = 1 − 0.25t
    const candidates = Array.from({ length: T }, (_, t) => [0.25 * t, -0.5]);
    const label = 'SWEET-RL, centred over K = 2 candidates (recomputed)';
    // A + c(s): the raw row moves, the centred one does not
    const shifted = (await openListed(store, listed, id, { sweet: { beta: 2 } }, { k: 2, candidates: candidates.map((x, t) => x.map((a) => a + c(t))) }))!;
    const raw = (await openListed(store, listed, id, { sweet: { beta: 2 } }, { k: 0 }))!.rows.find((r) => r.name === 'sweet')!;
    await store.putCriticScores(
      id,
      scores(() => 0),
    );
    const o = (await openListed(store, listed, id, { sweet: { beta: 2 } }, { k: 2, candidates }))!;
    const row = o.rows.find((r) => r.label === label)!;
    expect(Array.from(shifted.rows.find((r) => r.label === label)!.values)).toEqual(Array.from(row.values));
    expect(Array.from(raw.values)).not.toEqual(
      Array.from((await openListed(store, listed, id, { sweet: { beta: 2 } }, { k: 0 }))!.rows.find((r) => r.name === 'sweet')!.values),
    );
    expect(Array.from(row.values)).toEqual(Array.from({ length: T }, (_, t) => 1 - 0.25 * t));
    expect(o.needsCentring).toBe(false);
    // the strip over the turn's tokens averages to the centred bar; the readout keeps the raw β·log-ratio
    const [strip] = tokenStrips([row], offsets);
    for (let t = 0; t < T; t++) expect((strip.shown[2 * t] + strip.shown[2 * t + 1]) / 2).toBe(row.values[t]);
    expect(Array.from(strip.raw.subarray(0, 2))).toEqual([0, 1]);
    // before its candidates are in, the row is left out with why, and the view knows to sample them (default K = 8)
    const waiting = (await openListed(store, listed, id))!;
    expect(waiting.rows.some((r) => r.name === 'sweet')).toBe(false);
    expect(waiting.needsCentring).toBe(true);
    expect(waiting.hidden).toContainEqual({
      label: 'SWEET-RL, centred over K = 8 candidates',
      reason: "needs 8 candidate turns sampled by the policy at each turn's state",
    });
    // Play's stored rows say the K they were centred over; one from before centring is not shown as credit
    const perRecord = (perTurn: ArrayLike<number>) => [Number.NaN, ...Array.from(perTurn).flatMap((v) => [v, Number.NaN])];
    await store.putCredit(id, { estimator: 'sweet', version: 'live', params: { beta: 1, centre: 2 }, values: perRecord(row.values.map((x) => x + 1)) });
    expect((await openListed(store, listed, id))!.rows.map((r) => r.label)).toContain('SWEET-RL, centred over K = 2 candidates (as played)');
    await store.putCredit(id, { estimator: 'sweet', version: 'live', params: { beta: 1 }, values: perRecord(row.values) });
    expect((await openListed(store, listed, id))!.hidden).toContainEqual({
      label: 'SWEET-RL (as played)',
      reason: 'stored uncentred, before SWEET-RL credit was centred at its state',
    });
    store.close();
  });

  it('leaves out SWEET-RL scored by a critic without its adapter, and Play rows that repeat a recomputed one', async () => {
    const store = await TrajectoryStore.open({ name: `credit-model-constant-${process.pid}-${Date.now()}` });
    await importFile(store, textSource(readFileSync(FIXTURE, 'utf8')), { format: 'turnwise', source: 'fixture' });
    const listed = await listedEpisodes(store, '');
    const id = listed[0].id;
    const T = (await openListed(store, listed, id))!.actions.length;
    const offsets = Array.from({ length: T + 1 }, (_, t) => t);
    const lp = Array.from({ length: T }, () => -1);
    const values = [...Array.from({ length: T }, (_, t) => 0.5 - 0.1 * t), 0];
    // the shipped critic: no adapter, so its version has no "@adapter"
    await store.putCriticScores(id, {
      version: 'critic',
      values,
      tokenOffsets: offsets,
      tokens: lp.map(() => 7),
      tokenText: lp.map(() => 'a'),
      tokenValues: lp.map(() => 0),
      criticLogprobs: lp,
      refLogprobs: lp,
    });
    const o = (await openListed(store, listed, id))!;
    const gae = o.rows.find((r) => r.label === 'GAE (turn) (recomputed)')!;
    const perRecord = (perTurn: ArrayLike<number>) => [Number.NaN, ...Array.from(perTurn).flatMap((v) => [v, Number.NaN])];
    // Play stored what it showed: the same GAE, and SWEET-RL's zeros
    await store.putCredit(id, { estimator: 'gae', version: 'live', params: { gamma: 1, lambda: 0.95 }, values: perRecord(gae.values) });
    await store.putCredit(id, { estimator: 'sweet', version: 'live', params: { beta: 1 }, values: perRecord(new Float32Array(T)) });
    const after = (await openListed(store, listed, id))!;
    expect(after.rows.map((r) => r.label).filter((l) => /SWEET|as played/.test(l))).toEqual([]);
    expect(after.hidden.map((h) => [h.label, h.reason])).toEqual(
      expect.arrayContaining([
        ['SWEET-RL', 'the critic that scored it (critic) has no SWEET-RL adapter, so its log-ratio against its own base is 0 on every turn'],
        ['GAE (turn) (as played)', 'the same values as the GAE (turn) row shown'],
      ]),
    );
    store.close();
  });
});
