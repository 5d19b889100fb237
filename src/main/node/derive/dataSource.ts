// Batcher data of one L1 block (derivation.md "L1 Retrieval", ecotone/derivation.md "Blob Retrieval"): the
// transactions to the batch inbox signed by the batcher of the current system config, in block order; calldata
// before Ecotone, and from Ecotone blob transactions contribute their blobs (calldata ignored) while other types
// still contribute calldata. A blob that does not decode is skipped; a transaction from anyone else is ignored.
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import { decodeBlobData } from '../../protocol/blob/blobData.js';
import { recoverSender, signingData } from '../../protocol/senders/recover.js';
import type { BlobSource, IndexedBlobHash, Hex as L1Hex, L1Transaction } from '../l1/interface.js';
import { type Hex, type L1BlockRef, temporaryError, toHex } from './types.js';

/** What the data source reads (subsets of l1/interface.ts L1Source and BlobSource). */
export interface DataSourceProvider {
  infoAndTxsByHash(hash: L1Hex): Promise<{ txs: L1Transaction[] }>;
}

export type BlobProvider = Pick<BlobSource, 'getBlobs'>;

export interface DataSourceStats {
  /** Transactions to the inbox from someone other than the batcher, or of a type batches may not use. */
  txsIgnored: number;
  blobsInvalid: number;
}

const BLOB_TX_TYPE = 3;
const DEPOSIT_TX_TYPE = 0x7e;

/** Blobs are read from the first block at or after blobs_data (an override) or Ecotone. */
export function blobsEnabled(cfg: RollupConfig, l1Time: number): boolean {
  const at = cfg.blobsEnabledL1Timestamp ?? cfg.forks.ecotone;
  return at !== undefined && l1Time >= at;
}

export class DataSource {
  readonly stats: DataSourceStats = { txsIgnored: 0, blobsInvalid: 0 };

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: DataSourceProvider,
    private readonly blobs: BlobProvider | undefined,
    private readonly log: Logger,
  ) {}

  /** The batcher transaction sender, or undefined when the signature is unusable or for another chain. */
  private sender(tx: L1Transaction): Hex | undefined {
    try {
      const sd = signingData(tx.raw);
      if (sd.chainId !== undefined && sd.chainId !== this.cfg.l1ChainId) return undefined;
      return toHex(recoverSender(tx.raw));
    } catch {
      return undefined;
    }
  }

  private isBatcherTx(tx: L1Transaction, batcher: Hex): boolean {
    // Only types 0-3 (and deposits, for nested chains; DecodedTx never carries those) may carry batches.
    if (tx.type > BLOB_TX_TYPE && tx.type !== DEPOSIT_TX_TYPE) return false;
    if (tx.to === undefined || toHex(tx.to.bytes) !== this.cfg.batchInboxAddress.toLowerCase()) return false;
    const from = this.sender(tx);
    if (from !== batcher.toLowerCase()) {
      this.stats.txsIgnored++;
      this.log.debug('inbox transaction from an unauthorized sender ignored', { tx: toHex(tx.hash), from });
      return false;
    }
    return true;
  }

  /** All data items of the block, in order. */
  async fetch(ref: L1BlockRef, batcher: Hex): Promise<Uint8Array[]> {
    const { txs } = await this.l1.infoAndTxsByHash(ref.hash as L1Hex);
    const batcherTxs = txs.filter((tx) => this.isBatcherTx(tx, batcher));
    if (!blobsEnabled(this.cfg, ref.timestamp)) return batcherTxs.map((tx) => tx.data);

    // Blob indices count every blob of the block, batcher or not.
    const slots: Array<Uint8Array | IndexedBlobHash[]> = [];
    const wanted: IndexedBlobHash[] = [];
    let blobIndex = 0;
    const batcherSet = new Set(batcherTxs);
    for (const tx of txs) {
      const hashes = tx.blobVersionedHashes ?? [];
      if (!batcherSet.has(tx)) {
        blobIndex += hashes.length;
        continue;
      }
      if (tx.type !== BLOB_TX_TYPE) {
        slots.push(tx.data);
        continue;
      }
      const mine = hashes.map((h) => ({ index: blobIndex++, hash: h.toLowerCase() as L1Hex }));
      slots.push(mine);
      wanted.push(...mine);
    }
    if (wanted.length === 0) return slots.filter((s): s is Uint8Array => s instanceof Uint8Array);
    if (this.blobs === undefined) {
      throw temporaryError('BEACON_UNAVAILABLE', `L1 block ${ref.number} has blob batches: set --l1.beacon`);
    }
    const fetched = await this.blobs.getBlobs(ref as Parameters<BlobSource['getBlobs']>[0], wanted);
    const blobAt = new Map<number, Uint8Array>();
    for (const [i, w] of wanted.entries()) blobAt.set(w.index, fetched[i] as Uint8Array);
    const out: Uint8Array[] = [];
    for (const slot of slots) {
      if (slot instanceof Uint8Array) {
        out.push(slot);
        continue;
      }
      for (const w of slot) {
        try {
          out.push(decodeBlobData(blobAt.get(w.index) as Uint8Array));
        } catch (err) {
          this.stats.blobsInvalid++;
          this.log.warn('ignoring blob with invalid encoding', {
            l1: ref.number,
            index: w.index,
            hash: w.hash,
            err: (err as Error).message,
          });
        }
      }
    }
    return out;
  }
}
