// kill -9 at random points of a running devnet, CI-sized (3 rounds; `npm run soak:devnet` runs 20): the sequencer's
// and the replica's tern-exec and tern-node are SIGKILLed and restarted; the sequencer's chain keeps its blocks and
// continues, and the replica's safe chain ends up the sequencer's, block for block.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { xorshiftRng } from '../../bench/rng.js';
import { killSoak } from '../../bench/soak/devnetKills.js';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { Devnet } from '../../src/main/devnet/launcher.js';

it('kill -9 of devnet processes at random points loses nothing; the replica agrees with the sequencer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-devnet-e2e-kills-'));
  const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1-block-time=1', '--da=blobs']);
  if (opts === 'help') throw new Error('unexpected help');
  const devnet = new Devnet(opts, { print: () => {} });
  try {
    const info = await devnet.start();
    expect(info.missing).toEqual([]);
    const random = xorshiftRng(2026).float;
    const died = devnet.died.then((d) => {
      throw new Error(`${d.name} died on its own`);
    });
    const result = await Promise.race([killSoak(devnet, info, { kills: 3, random, maxGapMs: 4000 }), died]);
    expect(result.rounds).toHaveLength(3);
    // The seed's rounds hit both programs of both nodes' sides: not only one process.
    expect(new Set(result.rounds.map((x) => x.target)).size).toBeGreaterThan(1);
    expect(result.replicaSafe).toBeGreaterThan(result.rounds[2]?.before.number ?? 0);
  } finally {
    await devnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  expect(devnet.processes.every((p) => !p.running)).toBe(true);
}, 600_000);
