// The unsafe block signer gossip validation checks against (op-node's runtime config): the address in the L1
// SystemConfig contract's storage slot keccak256("systemconfig.unsafeblocksigner"), read at start and every
// --l1.runtime-config-reload-interval. Until it is known, gossiped blocks are ignored (not penalised).
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';

export const UNSAFE_BLOCK_SIGNER_SLOT = '0x65a7ed542fb37fe237fdfbdd70b31598523fe5b32879e307bae27a0bd9581c08';

export interface UnsafeSignerDeps {
  /** A JSON-RPC call to L1. */
  l1Call(method: string, params: unknown[]): Promise<unknown>;
  logger: Logger;
  signal: AbortSignal;
}

export class UnsafeSignerWatcher {
  readonly #cfg: RollupConfig;
  readonly #intervalMs: number;
  readonly #deps: UnsafeSignerDeps;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  address: string | undefined;

  constructor(cfg: RollupConfig, opts: { intervalMs: number }, deps: UnsafeSignerDeps) {
    this.#cfg = cfg;
    this.#intervalMs = opts.intervalMs;
    this.#deps = deps;
    this.#log = deps.logger.child('p2p');
  }

  async start(): Promise<void> {
    await this.reload();
    // Retry soon while unknown (L1 not answering yet), then at the configured interval.
    const every = Math.max(this.#intervalMs, 0);
    const tick = () => {
      const wait = this.address === undefined ? 2_000 : every;
      if (wait <= 0) return;
      this.#timer = setTimeout(() => void this.reload().finally(tick), wait);
      this.#timer.unref();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  async reload(): Promise<void> {
    try {
      const word = await this.#deps.l1Call('eth_getStorageAt', [
        this.#cfg.l1SystemConfigAddress,
        UNSAFE_BLOCK_SIGNER_SLOT,
        'latest',
      ]);
      if (typeof word !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(word))
        throw new TernError('P2P_SIGNER', `eth_getStorageAt answered ${String(word)}`);
      const addr = `0x${word.slice(2).padStart(64, '0').slice(24).toLowerCase()}`;
      if (addr !== this.address) this.#log.info('Unsafe block signer', { address: addr });
      this.address = addr;
    } catch (err) {
      this.#log.warn('Cannot read the unsafe block signer from L1', { err: (err as Error).message });
    }
  }
}
