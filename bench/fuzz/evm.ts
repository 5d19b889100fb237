// `npm run fuzz:evm [-- <cases> [<first seed> [full|interp|transfers]]]`: the differential run of bench/fuzz/evmDiff.ts over
// many seeds (default 2000 from seed 1; `interp`: contracts in the opcodes of tern's own interpreter): tern's
// executor against @ethereumjs/vm as shipped. Prints each mismatch with its
// seed (re-run one with `<1> <seed>`), and exits 1 if there was any.
import { type CodeProfile, runDifferential } from './evmDiff.js';

const count = Number(process.argv[2] ?? 2000);
const from = Number(process.argv[3] ?? 1);
const profile = (process.argv[4] ?? 'full') as CodeProfile;
if (
  !Number.isSafeInteger(count) ||
  count < 1 ||
  !Number.isSafeInteger(from) ||
  from < 0 ||
  (profile !== 'full' && profile !== 'interp' && profile !== 'transfers')
) {
  console.error('usage: fuzz:evm [cases >= 1] [first seed >= 0] [full|interp|transfers]');
  process.exit(2);
}
const t = performance.now();
const r = await runDifferential(from, count, profile);
for (const m of r.mismatches) console.log(`seed ${m.seed}: ${m.what}`);
console.log(
  `fuzz:evm: ${count} ${profile} cases (seeds ${from}..${from + count - 1}), ${r.txs} transactions (${r.succeeded} succeeded, ${r.logs} with logs), ${r.mismatches.length} mismatches, ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
process.exit(r.mismatches.length === 0 ? 0 : 1);
