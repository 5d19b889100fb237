// Child-process entry of the import benchmark: `node dist/bench/import/child.js <mode> <cache dir>`. Each run gets a
// fresh process (its own heap, JIT and caches; a CPU profile of just that run). Prints `RESULT <json>` on stdout.
//   ethereumjs          the tuned @ethereumjs/vm baseline
//   ethereumjs-shipped  @ethereumjs/vm as shipped: @noble crypto, no state caches
//   inprocess           tern's importer in this process, sender recovery on the worker pool
//   inprocess-inline    the same with sender recovery on this thread
//   inprocess-profile   `inprocess` with a CPU profile of the import loop written to the path in argv[4]
// BENCH_IMPORT_LIMIT=N in the environment imports only the first N blocks (quick runs while working on the importer).
import { readFileSync } from 'node:fs';
import { runEthereumjs } from './ethereumjs.js';
import { runTernInProcess } from './inprocess.js';
import { type ChainMeta, chainFiles } from './params.js';
import type { ImportFigures } from './tern.js';

async function main(): Promise<void> {
  const [mode, dir, profile] = process.argv.slice(2);
  if (mode === undefined || dir === undefined) throw new Error('usage: child.js <mode> <cache dir>');
  const files = chainFiles(dir);
  const meta = JSON.parse(readFileSync(files.meta, 'utf8')) as ChainMeta;
  const limitEnv = process.env.BENCH_IMPORT_LIMIT;
  const limit = limitEnv === undefined || limitEnv === '' ? undefined : Number(limitEnv);
  let result: ImportFigures;
  switch (mode) {
    case 'ethereumjs':
      result = await runEthereumjs(files, meta, {}, limit);
      break;
    case 'ethereumjs-shipped':
      result = await runEthereumjs(files, meta, { nativeKeccak: false, nativeSecp256k1: false, caches: false }, limit);
      break;
    case 'inprocess':
      result = await runTernInProcess(files, meta, { senders: 'pooled', limit });
      break;
    case 'inprocess-profile':
      if (profile === undefined) throw new Error('inprocess-profile needs the profile path');
      result = await runTernInProcess(files, meta, { senders: 'pooled', profile, limit });
      break;
    case 'inprocess-inline':
      result = await runTernInProcess(files, meta, { senders: 'inline', limit });
      break;
    default:
      throw new Error(`unknown mode ${mode}`);
  }
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
