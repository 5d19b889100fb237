// Alt-DA input resolution and challenge tracking for derivation (specs experimental/alt-da.md "Derivation";
// op-alt-da's DA manager and state). Every commitment read from the batch inbox is tracked with the L1 block that
// included it; the DataAvailabilityChallenge contract's ChallengeStatusChanged logs (from each L1 block's
// receipts, the "challenge origin", which may run ahead of the pipeline's origin) open and resolve challenges:
//   data found                                   → used
//   data missing, not challenged, window open    → wait (temporary; the challenge origin looks ahead)
//   data missing, not challenged, window passed  → critical: nobody challenged, yet the data is gone
//   data missing, challenge active               → wait for it to be resolved or to expire
//   challenge resolved on L1 (keccak)            → the resolve() calldata's input is used
//   challenge expired                            → the input is skipped
// A commitment whose challenge expires after derivation already used it ("newly expired") resets the pipeline;
// the challenge state survives that reset so the re-derivation skips the input.

import { TernError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/index.js';
import type { Receipt } from '../../../primitives/receipt/receipt.js';
import {
  CHALLENGE_STATUS_CHANGED_TOPIC,
  ChallengeStatus,
  decodeChallengeStatusChanged,
  decodeResolveData,
} from '../../../protocol/altda/challengeContract.js';
import { ALTDA_NOT_FOUND, type DaClient } from '../../../protocol/altda/client.js';
import {
  type Commitment,
  commitmentHex,
  decodeCommitment,
  encodeCommitment,
  KECCAK_COMMITMENT,
  verifyCommitment,
} from '../../../protocol/altda/commitment.js';
import type { Hex as L1Hex, L1Transaction } from '../../l1/interface.js';
import { criticalError, type L1BlockRef, resetError, temporaryError, toHex } from '../types.js';

export interface AltDaParams {
  commitmentType: number;
  challengeContract: string | undefined;
  challengeWindow: number;
  resolveWindow: number;
}

/** What the DA manager reads from L1 (subsets of l1/interface.ts L1Source). */
export interface AltDaL1 {
  blockRefByNumber(num: number): Promise<L1BlockRef>;
  fetchReceipts(hash: L1Hex): Promise<{ receipts: Receipt[] }>;
  infoAndTxsByHash(hash: L1Hex): Promise<{ txs: L1Transaction[] }>;
}

/** What the DA manager reads the inputs from (altda/client.ts DaClient). */
export type DaInputs = Pick<DaClient, 'getInput'>;

export interface AltDaMetrics {
  /** Waiting for the input of a commitment: why ('missing' | 'challenged' | 'unavailable'), or undefined when not. */
  setWaiting?(reason: string | undefined): void;
  recordChallenge?(status: 'active' | 'resolved' | 'expired'): void;
  recordSkipped?(reason: 'expired' | 'too-large' | 'invalid' | 'type'): void;
  setChallengeOrigin?(n: number): void;
}

export const ALTDA_PENDING = 'ALTDA_PENDING';

interface TrackedCommitment {
  comm: Commitment;
  inclusion: number;
  challengeWindowEnd: number;
}

interface Challenge {
  comm: Commitment;
  inclusion: number;
  resolveWindowEnd: number;
  status: number;
  input?: Uint8Array;
}

const key = (comm: Commitment, inclusion: number) => `${inclusion}:${commitmentHex(comm)}`;

/** The outcome of reading one commitment's input. */
export type InputResult = { kind: 'data'; data: Uint8Array } | { kind: 'skip'; reason: 'expired' };

export class DaManager {
  private commitments: TrackedCommitment[] = [];
  private challenges: Challenge[] = [];
  private expiredChallenges: Challenge[] = [];
  private readonly byKey = new Map<string, Challenge>();
  private challengeOrigin = 0;
  private commitmentOrigin = 0;
  private resetting = false;

  constructor(
    private readonly params: AltDaParams,
    private readonly l1: AltDaL1,
    private readonly da: DaInputs,
    private readonly log: Logger,
    private readonly metrics: AltDaMetrics = {},
  ) {}

  /** Pipeline reset to `base`; after a reset this manager asked for, challenges are kept. */
  reset(base: L1BlockRef): void {
    this.commitments = [];
    this.commitmentOrigin = base.number;
    if (this.resetting) {
      this.resetting = false;
      return;
    }
    this.challengeOrigin = base.number;
    this.challenges = [];
    this.expiredChallenges = [];
    this.byKey.clear();
  }

  /** Catches challenge tracking up with the pipeline's origin; a newly expired challenge resets the pipeline. */
  async advanceL1Origin(block: L1BlockRef): Promise<void> {
    if (block.number > this.challengeOrigin) await this.advanceChallengeOrigin(block);
    if (block.number <= this.commitmentOrigin) return;
    let reorg = false;
    while (this.commitments.length > 0) {
      const c = this.commitments[0] as TrackedCommitment;
      const ch = this.byKey.get(key(c.comm, c.inclusion));
      if ((ch?.resolveWindowEnd ?? c.challengeWindowEnd) > block.number) break;
      this.commitments.shift();
      if (ch !== undefined && ch.status !== ChallengeStatus.Resolved) reorg = true;
    }
    this.commitmentOrigin = block.number;
    if (reorg) {
      this.resetting = true;
      throw resetError('ALTDA_CHALLENGE_EXPIRED', 'alt-DA: a challenge of input already derived expired');
    }
  }

  /** The input of `comm`, included in L1 block `block`; throws TernErrors whose severity says what to do. */
  async getInput(comm: Commitment, block: L1BlockRef): Promise<InputResult> {
    const k = key(comm, block.number);
    const hex = commitmentHex(comm);
    if (this.byKey.get(k)?.status === ChallengeStatus.Expired) return this.skipExpired(hex, block);
    if (!this.commitments.some((c) => c.inclusion === block.number && key(c.comm, c.inclusion) === k)) {
      this.commitments.push({
        comm,
        inclusion: block.number,
        challengeWindowEnd: block.number + this.params.challengeWindow,
      });
    }
    try {
      const data = await this.da.getInput(comm);
      this.metrics.setWaiting?.(undefined);
      return { kind: 'data', data };
    } catch (err) {
      if (!(err instanceof TernError) || err.code !== ALTDA_NOT_FOUND) {
        this.metrics.setWaiting?.('unavailable');
        const msg = err instanceof Error ? err.message : String(err);
        throw temporaryError('ALTDA_UNAVAILABLE', `alt-DA input ${hex} (L1 block ${block.number}): ${msg}`, err);
      }
    }
    // Not found: look ahead on L1 for a challenge of it.
    for (;;) {
      const ch = this.byKey.get(k);
      const status = ch?.status ?? ChallengeStatus.Uninitialized;
      if (status === ChallengeStatus.Expired) return this.skipExpired(hex, block);
      if (status === ChallengeStatus.Resolved) {
        if (comm.type === KECCAK_COMMITMENT && ch?.input !== undefined) {
          this.metrics.setWaiting?.(undefined);
          this.log.info('alt-DA input taken from the resolved challenge', { comm: hex, l1: block.number });
          return { kind: 'data', data: ch.input };
        }
        throw this.missingPastWindow(hex, block, 'its challenge was resolved but the DA server does not have it');
      }
      if (
        status === ChallengeStatus.Uninitialized &&
        this.challengeOrigin > block.number + this.params.challengeWindow
      ) {
        throw this.missingPastWindow(hex, block, 'nobody challenged it within the challenge window');
      }
      const reason = status === ChallengeStatus.Active ? 'challenged' : 'missing';
      this.metrics.setWaiting?.(reason);
      let next: L1BlockRef;
      try {
        next = await this.l1.blockRefByNumber(this.challengeOrigin + 1);
      } catch (err) {
        throw temporaryError(
          ALTDA_PENDING,
          `alt-DA input ${hex} (L1 block ${block.number}) is ${reason === 'missing' ? 'not on the DA server' : 'challenged'}; waiting for L1 block ${this.challengeOrigin + 1}`,
          err,
        );
      }
      await this.advanceChallengeOrigin(next);
    }
  }

  private skipExpired(hex: string, block: L1BlockRef): InputResult {
    this.metrics.setWaiting?.(undefined);
    this.metrics.recordSkipped?.('expired');
    this.log.warn('alt-DA challenge expired, skipping the input', { comm: hex, l1: block.number });
    return { kind: 'skip', reason: 'expired' };
  }

  private missingPastWindow(hex: string, block: L1BlockRef, why: string): TernError {
    this.metrics.setWaiting?.(undefined);
    return criticalError(
      'ALTDA_MISSING_PAST_WINDOW',
      `alt-DA input ${hex} of L1 block ${block.number} is unavailable and ${why}: the DA server is missing data the chain depends on`,
    );
  }

  private async advanceChallengeOrigin(block: L1BlockRef): Promise<void> {
    await this.loadChallengeEvents(block);
    while (this.challenges.length > 0) {
      const c = this.challenges[0] as Challenge;
      if (c.resolveWindowEnd > block.number) break;
      this.challenges.shift();
      this.expiredChallenges.push(c);
      if (c.status === ChallengeStatus.Active) {
        c.status = ChallengeStatus.Expired;
        this.metrics.recordChallenge?.('expired');
        this.log.warn('alt-DA challenge expired', {
          comm: commitmentHex(c.comm),
          inclusion: c.inclusion,
          l1: block.number,
        });
      }
    }
    // Expired challenges are forgotten once no commitment can still refer to them.
    while (this.expiredChallenges.length > 0) {
      const c = this.expiredChallenges[0] as Challenge;
      if (c.resolveWindowEnd + this.params.challengeWindow + this.params.resolveWindow > block.number) break;
      this.expiredChallenges.shift();
      this.byKey.delete(key(c.comm, c.inclusion));
    }
    this.challengeOrigin = block.number;
    this.metrics.setChallengeOrigin?.(block.number);
  }

  private async loadChallengeEvents(block: L1BlockRef): Promise<void> {
    const contract = this.params.challengeContract?.toLowerCase();
    // Generic commitments cannot be challenged on L1.
    if (contract === undefined || this.params.commitmentType !== KECCAK_COMMITMENT) return;
    const { receipts } = await this.l1.fetchReceipts(block.hash as L1Hex);
    let txs: L1Transaction[] | undefined;
    for (const [txIndex, rec] of receipts.entries()) {
      if (rec.status !== 1) continue;
      for (const lg of rec.logs) {
        if (toHex(lg.address) !== contract) continue;
        const t0 = lg.topics[0];
        if (t0 === undefined || !Buffer.from(t0).equals(Buffer.from(CHALLENGE_STATUS_CHANGED_TOPIC))) continue;
        let comm: Commitment;
        let ev: ReturnType<typeof decodeChallengeStatusChanged>;
        try {
          ev = decodeChallengeStatusChanged(lg.topics, lg.data);
          comm = decodeCommitment(ev.challengedCommitment);
        } catch (err) {
          this.log.warn('ignoring undecodable challenge event', { l1: block.number, tx: txIndex, err: String(err) });
          continue;
        }
        const k = key(comm, ev.challengedBlockNumber);
        const hex = commitmentHex(comm);
        if (ev.status === ChallengeStatus.Active) {
          const c: Challenge = {
            comm,
            inclusion: ev.challengedBlockNumber,
            resolveWindowEnd: block.number + this.params.resolveWindow,
            status: ChallengeStatus.Active,
          };
          this.challenges.push(c);
          this.byKey.set(k, c);
          this.metrics.recordChallenge?.('active');
          this.log.info('alt-DA challenge opened', {
            comm: hex,
            inclusion: ev.challengedBlockNumber,
            l1: block.number,
          });
        } else if (ev.status === ChallengeStatus.Resolved) {
          const c = this.byKey.get(k);
          if (c === undefined) {
            this.log.warn('resolved challenge was not tracked', { comm: hex, l1: block.number });
            continue;
          }
          txs ??= (await this.l1.infoAndTxsByHash(block.hash as L1Hex)).txs;
          const tx = txs[txIndex];
          let input: Uint8Array;
          try {
            if (tx === undefined) throw new Error('no transaction for the receipt');
            input = decodeResolveData(tx.data);
          } catch (err) {
            this.log.warn('ignoring challenge resolution', { comm: hex, l1: block.number, err: String(err) });
            continue;
          }
          if (!verifyCommitment(comm, input)) {
            this.log.warn('resolved input does not match its commitment', { comm: hex, l1: block.number });
            continue;
          }
          c.status = ChallengeStatus.Resolved;
          c.input = input;
          this.metrics.recordChallenge?.('resolved');
          this.log.info('alt-DA challenge resolved', {
            comm: hex,
            inclusion: ev.challengedBlockNumber,
            l1: block.number,
          });
        }
      }
    }
  }

  /** No commitment or challenge in flight (finality may follow L1's lagged by the challenge window). */
  get idle(): boolean {
    return this.commitments.length === 0 && this.challenges.length === 0;
  }

  /** The commitment's DA-server key (logs). */
  static keyOf(comm: Commitment): string {
    return toHex(encodeCommitment(comm));
  }
}
