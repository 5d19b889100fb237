// `tern-exec import <file.rlp>...`: imports blocks from files of concatenated RLP blocks (geth's export format, .gz
// files decompressed), printing progress with blocks/s and Mgas/s. An invalid block stops the import with its number and reason; the
// blocks before it stay. After a crash, running the same import again skips the blocks already persisted.
// The import is a pipeline (ARCHITECTURE.md, data flow of block import): blocks are decoded ahead and their senders
// recovered on the worker pool while earlier blocks execute, and each block's write (atomic, in order; the blocks
// that queue up behind a commit in flight are committed together) is committed by LMDB while the next block executes.
// --nocompaction is accepted and changes nothing: geth compacts its LSM database (LevelDB/Pebble) after an import
// unless it is given; LMDB is a B+tree that reuses freed pages in place and has no compaction to run or skip.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { ReportedError, UsageError } from '../../common/errors.js';
import { type Block, decodeBlock } from '../../primitives/block/block.js';
import { rlpItems } from '../../primitives/rlpStream.js';
import { ChainStore, recoverHead } from '../chain/chainStore.js';
import { BlockImporter, InvalidBlockError } from '../chain/importer.js';
import { createPreimageRecorder } from '../chain/preimages.js';
import { openStagePools } from '../chain/stagePools.js';
import type { ExecContext } from '../options.js';
import { setupChainConfig } from '../rollup/chainSetup.js';
import type { SenderResult } from '../senders/interface.js';
import { createLiveTracer } from '../tracing/live.js';
import { commandHead, openChainDatabase } from './database.js';

const PROGRESS_INTERVAL_MS = 8000;
/** Blocks decoded ahead of the one executing, their senders already on the recovery pool. */
const LOOKAHEAD = 8;
/**
 * Transactions per recovery task while importing: a block's worth in one or two tasks. Workers take one task at a
 * time and get the next only when the executor's thread turns its event loop (between blocks, not during one), so
 * small tasks leave them idle while a block executes (measured: 16 per task kept the executor waiting ~100 ms per
 * block; one or two tasks per block keep recovery ahead).
 */
export const IMPORT_SENDER_CHUNK = 256;

/**
 * Decodes blocks ahead of the importer and hands their signatures to the recovery pool (data flow step 1), so
 * recovery of the next blocks overlaps execution of this one. A block that does not decode is reported (thrown)
 * when the import reaches it.
 */
export function* decodeAhead(
  data: Uint8Array,
  recover: (txs: readonly Uint8Array[]) => Promise<SenderResult[]>,
): Generator<{ block: Block; senders: Promise<SenderResult[]> }> {
  const queue: Array<{ block?: Block; senders?: Promise<SenderResult[]>; error?: unknown }> = [];
  const it = rlpItems(data)[Symbol.iterator]();
  let done = false;
  const fill = () => {
    while (!done && queue.length <= LOOKAHEAD) {
      const next = it.next();
      if (next.done === true) {
        done = true;
        break;
      }
      let block: Block;
      try {
        block = decodeBlock(next.value);
      } catch (err) {
        // Reported when the import reaches this block: the blocks before it are imported first.
        queue.push({ error: err });
        done = true;
        break;
      }
      const senders = recover(block.transactions);
      // A rejection is seen when the block is imported; until then it must not count as unhandled.
      senders.catch(() => {});
      queue.push({ block, senders });
    }
  };
  for (;;) {
    fill();
    const item = queue.shift();
    if (item === undefined) return;
    if (item.block === undefined) throw item.error;
    yield { block: item.block, senders: item.senders as Promise<SenderResult[]> };
  }
}

/** What `import` reads besides the node's options. */
export interface ImportCommandOptions {
  /** --cache.noprefetch: the hasher thread does not walk a block's trie paths ahead of hashing. */
  noPrefetch: boolean;
}

export async function runImport(ctx: ExecContext): Promise<'done'> {
  const files = ctx.options.args.map((path) => {
    try {
      const data = readFileSync(path);
      // geth's export writes .gz files compressed; read them the same way.
      return { path, data: path.endsWith('.gz') ? gunzipSync(data) : data };
    } catch (err) {
      throw new UsageError(`cannot read import file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  });
  return importBlockFiles(ctx, 'import', () => files);
}

/** Concatenated RLP blocks to import, with the name progress and errors give them. */
export interface BlockFile {
  path: string;
  data: Uint8Array;
}

/**
 * Executes and stores the blocks of each file in turn (the import pipeline). `files` is called once the chain is
 * open, with its store (import-history checks the head and the chain's network first).
 */
export async function importBlockFiles(
  { options, log, lifecycle }: ExecContext,
  command: string,
  files: (store: ChainStore) => Iterable<BlockFile>,
): Promise<'done'> {
  const logger = log.logger.child(command);
  const { node } = options;
  const db = await openChainDatabase(options.database, lifecycle, logger);
  // As geth's import: a network flag (--mainnet, --stack-network ...) writes its genesis into an empty database.
  await setupChainConfig(db, options.chainSetup, { logger });
  // --vmdebug / --cache.preimages (archive mode records trie keys too, as geth) and --vmtrace apply to import as in
  // geth's `import`, whose chain is built with the node's VM and cache settings.
  const preimages = createPreimageRecorder(node.preimages);
  const store = new ChainStore(db, { preimages });
  commandHead(store);
  await recoverHead(store, logger);
  // Senders on the recovery pool, state roots on the trie hasher's thread with block N hashed while N+1 executes
  // (ARCHITECTURE.md data flow steps 1 and 3); the memory engine has no directory a worker could open, so there both
  // run here.
  const stages = openStagePools(db, {
    workers: true,
    hasher: { cacheMB: node.storage.cache.trieCleanMB, prefetch: !options.import.noPrefetch },
    senderChunk: IMPORT_SENDER_CHUNK,
  });
  lifecycle.onStop('sender recovery pool and trie hasher', () => stages.close());
  const { senders, hasher } = stages;
  const live = node.vmtrace ? createLiveTracer(node.vmtrace.name, node.vmtrace.config) : undefined;
  if (live) {
    lifecycle.onStop('live tracer', () => live.close());
    logger.info('Live tracing enabled', { tracer: live.name });
  }
  logger.info('Trie hasher', { thread: stages.thread === 'worker' ? 'worker' : 'importer', prefetch: stages.prefetch });
  const importer = await BlockImporter.create(store, senders, logger, {
    hasher,
    tracer: live,
    flatState: node.storage.flatState,
  });

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

  for (const file of files(store)) {
    logger.info('Importing blockchain', { file: file.path });
    let index = 0;
    // Position in the file of the blocks in flight: a block's wrong state root is found while the next one executes.
    const positions = new Map<bigint, number>();
    try {
      for (const { block, senders: recovered } of decodeAhead(file.data, (txs) => senders.recover(txs))) {
        if (lifecycle.signal.aborted) {
          // The blocks already executed are written before the import stops.
          await importer.settle();
          throw new ReportedError('import interrupted');
        }
        // Pipelined: this block's state root is checked and its write queued while the next one executes (settled
        // below and on errors).
        positions.set(block.header.number, index + 1);
        if (positions.size > 16) positions.delete(positions.keys().next().value as bigint);
        const r = await importer.importBlock(block, { senders: recovered, pipeline: true });
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
      const t = performance.now();
      await importer.settle();
      totals.persistence += performance.now() - t;
    } catch (err) {
      if (err instanceof ReportedError) throw err;
      // Blocks before the failing one stay: let their queued writes finish (a write error is the failure itself).
      await importer.settle().catch(() => {});
      const why = err instanceof Error ? err.message : String(err);
      report(true);
      const at = (err instanceof InvalidBlockError ? positions.get(err.number) : undefined) ?? index + 1;
      throw new ReportedError(`import of ${file.path} stopped at block #${at} of the file: ${why}`, err);
    }
  }
  report(true);
  return 'done';
}
