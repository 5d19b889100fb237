// `tern-exec export <file> [first last]`: writes canonical blocks as concatenated RLP (the format `import` reads,
// geth's export format). Without a range the whole chain replaces the file; with a range the blocks are appended,
// as geth does, so several ranges can be collected in one file. A name ending in .gz is gzip-compressed.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createGzip, type Gzip } from 'node:zlib';
import { ReportedError, UsageError } from '../../common/errors.js';
import { encodeBlock } from '../../primitives/block/block.js';
import { ChainStore } from '../chain/chainStore.js';
import type { ExecContext } from '../options.js';
import { commandHead, openReadChainDatabase } from './database.js';

const PROGRESS_INTERVAL_MS = 8000;

/** Parses the optional block range; both ends or neither, first <= last, as geth asks. */
export function parseExportRange(args: readonly string[]): { first: bigint; last: bigint } | undefined {
  if (args.length === 1) return undefined;
  if (args.length !== 3) throw new UsageError('export takes <file> or <file> <first> <last>');
  const num = (s: string, what: string) => {
    if (!/^\d+$/.test(s)) throw new UsageError(`export: ${what} block number "${s}" is not a non-negative integer`);
    return BigInt(s);
  };
  const first = num(args[1] as string, 'first');
  const last = num(args[2] as string, 'last');
  if (first > last) throw new UsageError(`export: first block ${first} is after last block ${last}`);
  return { first, last };
}

async function write(out: Gzip | WriteStream, chunk: Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

export async function runExport({ options, log, lifecycle }: ExecContext): Promise<'done'> {
  const logger = log.logger.child('export');
  const [path] = options.args as [string, ...string[]];
  const range = parseExportRange(options.args);
  const db = await openReadChainDatabase(options.database, lifecycle, logger);
  const store = new ChainStore(db);
  const head = commandHead(store).number;
  const first = range?.first ?? 0n;
  const last = range?.last ?? head;
  if (last > head) throw new UsageError(`export: last block ${last} is beyond the head of the chain (${head})`);

  const file = createWriteStream(path, { flags: range ? 'a' : 'w' });
  const failed = new Promise<never>((_, reject) => file.once('error', reject));
  const out: Gzip | WriteStream = path.endsWith('.gz') ? createGzip() : file;
  if (out !== file) out.pipe(file);
  logger.info('Exporting blockchain', { file: path, first, last });
  const started = performance.now();
  let lastReport = started;
  try {
    await Promise.race([
      failed,
      (async () => {
        for (let n = first; n <= last; n++) {
          if (lifecycle.signal.aborted) throw new ReportedError(`export interrupted at block ${n}`);
          const block = store.blockByNumber(n);
          if (block === undefined) throw new ReportedError(`export: block ${n} is missing from the database`);
          await write(out, encodeBlock(block));
          if (performance.now() - lastReport > PROGRESS_INTERVAL_MS) {
            lastReport = performance.now();
            logger.info('Exporting blocks', { exported: n - first + 1n, number: n });
          }
        }
        out.end();
        await once(file, 'close');
      })(),
    ]);
  } catch (err) {
    file.destroy();
    if (err instanceof ReportedError || err instanceof UsageError) throw err;
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new ReportedError(`export to ${path} failed: ${why}`, err);
  }
  logger.info('Exported blockchain', {
    file: path,
    blocks: last - first + 1n,
    elapsed: `${((performance.now() - started) / 1000).toFixed(1)}s`,
  });
  return 'done';
}
