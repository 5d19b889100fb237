// The sequencer's options (--sequencer.*) and their defaults, and the startup check of --sequencer.l1-confs
// against the sequencer drift: an origin kept that many L1 blocks behind the head must still be adoptable
// within the drift, or the sequencer could only make deposit-only blocks (seed error table: 1800 s, 150 blocks).
import { UsageError } from '../../common/errors.js';
import { maxSequencerDrift, type RollupConfig } from '../../primitives/rollup/config.js';

export interface SequencerOptions {
  /** --sequencer.l1-confs */
  l1Confs: number;
  /** --sequencer.max-safe-lag; 0 disables. */
  maxSafeLag: number;
  /** --sequencer.stopped */
  stopped: boolean;
  /** --sequencer.recover */
  recover: boolean;
  /** How long before the slot the payload is fetched (op-node's sealing duration). */
  sealMarginMs?: number | undefined;
  /** The L1 slot time the confirmation depth is measured in (Ethereum: 12 s). */
  l1BlockTime?: number | undefined;
}

export const sequencerDefaults = {
  l1Confs: 4,
  maxSafeLag: 0,
  stopped: false,
  recover: false,
  sealMarginMs: 50,
  l1BlockTime: 12,
} as const;

/** Throws a UsageError when --sequencer.l1-confs L1 blocks span more than the sequencer drift. */
export function checkSequencerConfDepth(
  cfg: RollupConfig,
  l1Confs: number,
  nowSeconds: number,
  l1BlockTime: number = sequencerDefaults.l1BlockTime,
): void {
  const drift = maxSequencerDrift(cfg, nowSeconds);
  if (l1Confs * l1BlockTime > drift) {
    const max = Math.floor(drift / l1BlockTime);
    throw new UsageError(
      `--sequencer.l1-confs=${l1Confs} (${l1Confs * l1BlockTime} s of L1 blocks) exceeds the sequencer drift of ${drift} s ` +
        `(${max} blocks): the sequencer could not adopt L1 origins within the drift and only produce deposit-only blocks; ` +
        `use at most ${max}`,
    );
  }
}
