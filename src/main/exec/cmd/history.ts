// `tern-exec export-history <dir> <first> <last>` and `tern-exec import-history <dir>`: geth's era1 history
// commands. Export writes blocks first..last with their receipts as era1 files of 8192 blocks (named after the
// network and the accumulator root) and a checksums.txt of their sha256 digests, as geth's utils.ExportHistory.
// Import reads such a directory into a database at genesis: each file is checked against checksums.txt and its
// accumulator root, then its blocks go through tern's import pipeline. Unlike geth, which inserts archived blocks
// and receipts without executing them (InsertReceiptChain), tern has no state-less chain segment, so the blocks
// are executed and their state, receipts and roots checked as `import` does.
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ReportedError, UsageError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { decodeHeader } from '../../primitives/block/header.js';
import { toHex } from '../../primitives/bytes.js';
import { asList, type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { ChainStore } from '../chain/chainStore.js';
import * as chain from '../db/chain.js';
import { computeAccumulator, ERA1_MAX_BLOCKS } from '../era/accumulator.js';
import { Era1Builder, era1Filename } from '../era/era1.js';
import { Era1File, eraNetworkName, listEra1Files } from '../era/store.js';
import type { ExecContext } from '../options.js';
import { commandHead, openReadChainDatabase } from './database.js';
import { type BlockFile, importBlockFiles } from './import.js';

const PROGRESS_INTERVAL_MS = 8000;
const ZERO_ROOT = new Uint8Array(32);

/** `<dir> <first> <last>` as geth's exportHistory parses them. */
export function parseExportHistoryArgs(args: readonly string[]): { dir: string; first: bigint; last: bigint } {
  if (args.length !== 3) throw new UsageError('usage: export-history <dir> <first> <last>');
  const [dir, a, b] = args as [string, string, string];
  if (!/^-?\d+$/.test(a) || !/^-?\d+$/.test(b)) throw new UsageError('export-history: block number not an integer');
  const first = BigInt(a);
  const last = BigInt(b);
  if (first < 0n || last < 0n) throw new UsageError('export-history: block number must be greater than 0');
  if (first > last) throw new UsageError(`export-history: first block ${first} is after last block ${last}`);
  return { dir, first, last };
}

/** geth's era1 receipts: rlp(types.Receipts), legacy receipts as lists (tern stores every receipt as a string). */
export function eraReceiptsRlp(stored: Uint8Array): Uint8Array {
  const items = asList(rlpDecode(stored), 'receipts').map((r) =>
    r instanceof Uint8Array && r.length > 0 && (r[0] as number) >= 0xc0 ? rlpDecode(r) : r,
  );
  return rlpEncode(items as Parameters<typeof rlpEncode>[0]);
}

const sha256Hex = (data: Uint8Array): string => `0x${createHash('sha256').update(data).digest('hex')}`;

export async function runExportHistory({ options, log, lifecycle }: ExecContext): Promise<'done'> {
  const logger = log.logger.child('export-history');
  const { dir, first, last } = parseExportHistoryArgs(options.args);
  const db = await openReadChainDatabase(options.database, lifecycle, logger);
  const store = new ChainStore(db);
  const head = commandHead(store).number;
  if (last > head) throw new UsageError(`export-history: block number ${last} larger than head block ${head}`);
  const network = eraNetworkName(store.config().chainId);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ReportedError(`error creating output directory ${dir}: ${(err as NodeJS.ErrnoException).code}`, err);
  }
  logger.info('Exporting blockchain history', { dir, first, last, network });

  const blockAt = (n: bigint) => {
    const hash = store.canonicalHash(n);
    const header = hash && chain.readHeaderRlp(db, Number(n), hash);
    const body = hash && chain.readBodyRlp(db, Number(n), hash);
    const receipts = hash && chain.readReceiptsRlp(db, Number(n), hash);
    if (!hash || !header || !body || !receipts) throw new ReportedError(`export-history: block #${n} not found`);
    return { hash, header, body, receipts, difficulty: decodeHeader(header).difficulty };
  };
  // The total difficulty before `first` (geth sums it from genesis when the range starts before the merge).
  let td = 0n;
  if (first > 0n && blockAt(first).difficulty !== 0n) for (let n = 0n; n < first; n++) td += blockAt(n).difficulty;

  const checksums: string[] = [];
  const started = performance.now();
  let reported = started;
  const size = BigInt(ERA1_MAX_BLOCKS);
  for (let batch = first; batch <= last; batch += size) {
    const epoch = Number(batch / size);
    const tmpPath = join(dir, era1Filename(network, epoch, ZERO_ROOT));
    const fd = openSync(tmpPath, 'w');
    let root: Uint8Array;
    try {
      const builder = new Era1Builder((chunk) => writeSync(fd, chunk));
      for (let n = batch; n < batch + size && n <= last; n++) {
        if (lifecycle.signal.aborted) throw new ReportedError(`export-history interrupted at block ${n}`);
        const b = blockAt(n);
        td += b.difficulty;
        builder.add({
          number: n,
          hash: b.hash,
          totalDifficulty: td,
          header: b.header,
          body: b.body,
          receipts: eraReceiptsRlp(b.receipts),
        });
      }
      root = builder.finish();
    } finally {
      closeSync(fd);
    }
    checksums.push(sha256Hex(readFileSync(tmpPath)));
    renameSync(tmpPath, join(dir, era1Filename(network, epoch, root)));
    if (performance.now() - reported > PROGRESS_INTERVAL_MS) {
      reported = performance.now();
      logger.info('Export progress', {
        exported: batch - first,
        elapsed: `${((reported - started) / 1000).toFixed(1)}s`,
      });
    }
  }
  writeFileSync(join(dir, 'checksums.txt'), checksums.join('\n'));
  logger.info('Export done', {
    files: checksums.length,
    elapsed: `${((performance.now() - started) / 1000).toFixed(1)}s`,
  });
  return 'done';
}

/** geth's readList: the non-empty lines of checksums.txt. */
function readChecksums(dir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(dir, 'checksums.txt'), 'utf8');
  } catch (err) {
    throw new UsageError(`unable to read checksums.txt: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/**
 * One era1 file checked (its recorded accumulator root against the one its headers and total difficulties give)
 * and turned into concatenated block RLP for the import pipeline; the genesis block is skipped, as geth does.
 */
export function era1ToBlocks(file: Era1File): Uint8Array {
  const r = file.reader;
  const records = [];
  const blocks: Uint8Array[] = [];
  for (let n = r.start; n <= r.end; n++) {
    const b = r.block(n);
    records.push({ hash: keccak256(b.header), totalDifficulty: b.totalDifficulty });
    if (n === 0n) continue;
    const body = asList(rlpDecode(b.body), `body of block ${n}`);
    blocks.push(rlpEncode([rlpDecode(b.header), ...body] as RlpDecoded[] as Parameters<typeof rlpEncode>[0]));
  }
  const root = computeAccumulator(records);
  const recorded = r.accumulator();
  if (Buffer.compare(root, recorded) !== 0)
    throw new UsageError(
      `${file.path}: accumulator root mismatch: file has ${toHex(recorded)}, blocks give ${toHex(root)}`,
    );
  return Buffer.concat(blocks);
}

export async function runImportHistory(ctx: ExecContext): Promise<'done'> {
  const [dir] = ctx.options.args as [string];
  return importBlockFiles(ctx, 'import-history', (store) => {
    if (store.head().number !== 0n) throw new UsageError('history import only supported when starting from genesis');
    const network = eraNetworkName(store.config().chainId);
    const names = listEra1Files(dir, network);
    if (names.length === 0) throw new UsageError(`no era1 files found in ${dir} for network ${network}`);
    const checksums = readChecksums(dir);
    if (checksums.length !== names.length)
      throw new UsageError(
        `expected equal number of checksums and entries, have: ${checksums.length} checksums, ${names.length} entries`,
      );
    return (function* (): Generator<BlockFile> {
      for (const [i, name] of names.entries()) {
        const path = join(dir, name);
        const got = sha256Hex(readFileSync(path));
        if (got !== checksums[i]) throw new UsageError(`${name} checksum mismatch: have ${got} want ${checksums[i]}`);
        const file = new Era1File(path);
        try {
          yield { path, data: era1ToBlocks(file) };
        } finally {
          file.close();
        }
      }
    })();
  });
}
