// npm run soak:devnet [kills] [seed]: a fresh devnet (blob batches, 1 s layer-1 blocks), then `kills` (default 20)
// kill -9 rounds at random points of the sequencer's and the replica's programs; prints each round and a JSON summary,
// exits non-zero when anything was lost, a process did not recover, or the devnet lost a process on its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { Devnet } from '../../src/main/devnet/launcher.js';
import { xorshiftRng } from '../rng.js';
import { killSoak } from './devnetKills.js';

const kills = Number(process.argv[2] ?? 20);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const r = xorshiftRng(seed);
const dir = mkdtempSync(join(tmpdir(), 'tern-soak-devnet-'));
const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1-block-time=1', '--da=blobs']);
if (opts === 'help') throw new Error('unexpected help');
const devnet = new Devnet(opts, { print: (l) => process.stdout.write(`${l}\n`) });
let failed: unknown;
const started = performance.now();
try {
  const info = await devnet.start();
  const died = devnet.died.then((d) => {
    throw new Error(`${d.name} died on its own`);
  });
  const result = await Promise.race([
    killSoak(devnet, info, {
      kills,
      random: () => r.int(2 ** 30) / 2 ** 30,
      log: (l) => process.stdout.write(`${l}\n`),
    }),
    died,
  ]);
  const ms = result.rounds.map((r) => r.recoveryMs).sort((a, b) => a - b);
  const summary = {
    seed,
    kills: result.rounds.length,
    byTarget: Object.fromEntries(
      [...new Set(result.rounds.map((r) => r.target))].map((t) => [
        t,
        result.rounds.filter((r) => r.target === t).length,
      ]),
    ),
    recoveryMsMedian: ms[Math.floor(ms.length / 2)],
    recoveryMsMax: ms.at(-1),
    replicaSafeChecked: result.replicaSafe,
    seconds: Math.round((performance.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} catch (err) {
  failed = err;
  process.stdout.write(`FAILED: ${err instanceof Error ? err.message : String(err)}\nlogs in ${dir}/logs\n`);
} finally {
  await devnet.stop();
  if (failed === undefined) rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed === undefined ? 0 : 1;
