// `tern-exec import <file.rlp>...`: imports blocks from files of concatenated RLP blocks (geth's export format, .gz
// files decompressed),
// printing progress with blocks/s and Mgas/s. An invalid block stops the import with its number and reason; the
// blocks before it stay. After a crash, running the same import again skips the blocks already persisted.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ProgramContext } from '../../cli/run.js';
import { ReportedError, TernError, UsageError } from '../../common/errors.js';
import { decodeBlock } from '../../primitives/block/block.js';
import { rlpItems } from '../../primitives/rlpStream.js';
import { ChainStore } from '../chain/chainStore.js';
import { BlockImporter } from '../chain/importer.js';
import { PooledSenderRecovery } from '../senders/pooled.js';
import { openChainDatabase } from './database.js';

const PROGRESS_INTERVAL_MS = 8000;

export async function runImport({ settings, log, lifecycle }: ProgramContext): Promise<'done'> {
  const logger = log.logger.child('import');
  const files = settings.args.map((path) => {
    try {
      const data = readFileSync(path);
      // geth's export writes .gz files compressed; read them the same way.
      return { path, data: path.endsWith('.gz') ? gunzipSync(data) : data };
    } catch (err) {
      throw new UsageError(`cannot read import file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  });
  const db = await openChainDatabase(settings, lifecycle, logger);
  const store = new ChainStore(db);
  try {
    store.head();
  } catch (err) {
    if (err instanceof TernError && err.code === 'CHAIN_NOT_INITIALISED') throw new UsageError(err.message);
    throw err;
  }
  const senders = new PooledSenderRecovery();
  lifecycle.onStop('sender recovery pool', () => senders.close());
  const importer = await BlockImporter.create(store, senders, logger);

  const started = performance.now();
  let lastReport = started;
  let blocks = 0;
  let skipped = 0;
  let txs = 0;
  let gas = 0n;
  const totals = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
  const report = (final: boolean) => {
    const secs = (performance.now() - started) / 1000;
    logger.info(final ? 'Import done' : 'Importing blocks', {
      blocks,
      skipped,
      txs,
      head: store.head().number,
      elapsed: `${secs.toFixed(1)}s`,
      'blocks/s': (blocks / Math.max(secs, 1e-9)).toFixed(1),
      'mgas/s': (Number(gas) / 1e6 / Math.max(secs, 1e-9)).toFixed(2),
      ...(final ? Object.fromEntries(Object.entries(totals).map(([k, v]) => [`${k}Ms`, Math.round(v)])) : {}),
    });
  };

  for (const file of files) {
    logger.info('Importing blockchain', { file: file.path });
    let index = 0;
    try {
      for (const raw of rlpItems(file.data)) {
        if (lifecycle.signal.aborted) throw new ReportedError('import interrupted');
        const block = decodeBlock(raw);
        const r = await importer.importBlock(block);
        index++;
        if (r.status === 'known') {
          skipped++;
          continue;
        }
        blocks++;
        txs += r.txs;
        gas += r.gasUsed;
        for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r.timings[k];
        if (performance.now() - lastReport > PROGRESS_INTERVAL_MS) {
          lastReport = performance.now();
          report(false);
        }
      }
    } catch (err) {
      if (err instanceof ReportedError) throw err;
      const why = err instanceof Error ? err.message : String(err);
      report(true);
      throw new ReportedError(`import of ${file.path} stopped at block #${index + 1} of the file: ${why}`, err);
    }
  }
  report(true);
  return 'done';
}
