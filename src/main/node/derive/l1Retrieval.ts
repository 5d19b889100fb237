// L1 retrieval (derivation.md "L1 Retrieval"): opens the batcher data of the block L1 traversal yields and hands
// it to the frame queue one item at a time, authenticating with the system config of that very block.
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { AltDaInputs } from './altda/altDaInputs.js';
import { type BlobProvider, DataSource, type DataSourceProvider } from './dataSource.js';
import { type L1DataSource, type StageDeps, stageLogger } from './frameQueue.js';
import type { L1BlockRef, SystemConfig } from './types.js';

/** What L1 retrieval reads: L1 traversal. */
export interface L1BlockSource {
  origin(): L1BlockRef | undefined;
  nextL1Block(): L1BlockRef | undefined;
  systemConfig(): SystemConfig;
}

export class L1Retrieval implements L1DataSource {
  readonly source: DataSource;
  private datas: Uint8Array[] | undefined;
  private pending: L1BlockRef | undefined;
  /** The block `datas` came from. */
  private current: L1BlockRef | undefined;
  private readonly log: Logger;

  constructor(
    cfg: RollupConfig,
    private readonly prev: L1BlockSource,
    l1: DataSourceProvider,
    blobs: BlobProvider | undefined,
    deps: StageDeps = {},
    private readonly altDa?: AltDaInputs | undefined,
  ) {
    this.log = stageLogger(deps, 'l1-retrieval');
    this.source = new DataSource(cfg, l1, blobs, this.log);
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  /** The next data item of the current L1 block; undefined once the block is exhausted. */
  async nextData(): Promise<Uint8Array | undefined> {
    if (this.datas === undefined) {
      // A failed fetch keeps the block taken from traversal in `pending`, so the retry reads it again.
      this.pending ??= this.prev.nextL1Block();
      if (this.pending === undefined) return undefined;
      this.datas = await this.source.fetch(this.pending, this.prev.systemConfig().batcherAddr);
      this.log.debug('opened L1 data', { l1: this.pending.number, items: this.datas.length });
      this.current = this.pending;
      this.pending = undefined;
    }
    if (this.altDa !== undefined && this.current !== undefined) {
      await this.altDa.advance(this.current);
      // An alt-DA item stays first in `datas` until its input is resolved, so a temporary error retries it.
      for (;;) {
        const item = this.datas[0];
        if (item === undefined) break;
        const data = await this.altDa.resolve(item, this.current);
        this.datas.shift();
        if (data !== undefined) return data;
      }
    }
    const item = this.datas.shift();
    if (item === undefined) this.datas = undefined;
    return item;
  }

  reset(base?: L1BlockRef): void {
    this.datas = undefined;
    this.pending = undefined;
    this.current = undefined;
    if (base !== undefined) this.altDa?.reset(base);
  }
}
