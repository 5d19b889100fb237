// `npm run bench`: runs every suite (or those named on the command line) and prints one table per suite.
import { cpus } from 'node:os';
import type { BenchRow, BenchSuite } from './suite.js';
import { SUITES } from './suites.js';

function formatRows(rows: readonly BenchRow[]): string {
  const lines = rows.map((r) =>
    [r.task.padEnd(44), r.opsPerSec.toFixed(0).padStart(14), r.meanMicros.toFixed(3).padStart(12), r.note ?? ''].join(
      '  ',
    ),
  );
  return [`${'task'.padEnd(44)}  ${'ops/s'.padStart(14)}  ${'mean µs'.padStart(12)}  note`, ...lines].join('\n');
}

async function main(): Promise<void> {
  const wanted = new Set(process.argv.slice(2));
  const chosen: BenchSuite[] = SUITES.filter((s) => wanted.size === 0 || wanted.has(s.name));
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  console.log(`tern benchmarks — node ${process.version}, ${cpus().length} × ${cpu}`);
  for (const suite of chosen) {
    console.log(`\n## ${suite.name}`);
    console.log(formatRows(await suite.run()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
