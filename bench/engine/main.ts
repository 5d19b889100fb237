// `npm run bench:engine`: the engine-path benchmark (run.ts). Ends with one line per workload, the mix last:
// `engine mix: http <X> Mgas/s, in-process <Y> Mgas/s, import <Z> Mgas/s, getBalance p99 <P> ms, call p99 <Q> ms`.
//
// Options (after `npm run bench:engine --`):
//   --blocks N            blocks in each chain (default 200; a small N makes a quick run)
//   --block-gas N         gas per block the generator fills to (default 16000000)
//   --workloads a,b       the chains (bench/import's workloads; default mix,transfers-erc20)
//   --repeat N            runs of each path per workload, the best counts (default 1)
//   --regenerate          discard the cached chains first
//   --http-only           only the HTTP import with its read probe (no summary line)
import { cpus, totalmem } from 'node:os';
import { defaultChainOptions, load, parseChainArgs } from '../import/session.js';
import { runEngineBenchmark, runHttpLegs, summaryLine } from './run.js';

async function main(): Promise<void> {
  let httpOnly = false;
  const o = parseChainArgs(process.argv.slice(2), defaultChainOptions(['mix', 'transfers-erc20']), (flag) => {
    if (flag !== '--http-only') return false;
    httpOnly = true;
    return true;
  });
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  console.log(
    `tern engine-path benchmark — node ${process.version}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${load()}`,
  );
  if (httpOnly) return runHttpLegs(o);
  const results = await runEngineBenchmark(o);
  console.log('');
  for (const r of results) console.log(summaryLine(r));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
