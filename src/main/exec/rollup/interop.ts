// Interop mempool filtering (--rollup.interoprpc with --rollup.interopmempoolfiltering): a transaction whose access
// list names CrossL2Inbox storage keys executes interop messages, and is admitted only when the supervisor's
// `supervisor_checkAccessList` accepts those keys at `cross-unsafe` for the next block's time, held for a day (the
// interop spec's pre-verifier window). op-geth's ingress filter: no inbox keys → admitted; interop not scheduled
// or the next block time unknown → refused; any RPC error → refused.
import type { Logger } from '../../common/logger/index.js';
import { RpcClient } from '../../common/rpc/client.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';

/** The CrossL2Inbox predeploy. */
export const CROSS_L2_INBOX = '4200000000000000000000000000000000000022';

/** The interop spec's pre-verifier timeout: verification must still hold a day later. */
export const INTEROP_PREVERIFY_TIMEOUT = 86400n;

/** The error op-geth's pool answers for a transaction an ingress filter refused. */
export const TX_FILTERED_OUT = 'transaction filtered out';

/** Every CrossL2Inbox storage key of the access list, joined in order (op-geth's TxToInteropAccessList). */
export function interopAccessList(tx: DecodedTx): string[] {
  const out: string[] = [];
  for (const [address, keys] of tx.accessList ?? []) {
    if (Buffer.from(address).toString('hex') === CROSS_L2_INBOX) for (const k of keys) out.push(hex(k));
  }
  return out;
}

/** What the filter needs from the chain: the time of the block the transaction would go in. */
export interface InteropChain {
  /** The next block's timestamp, or an error text when interop is not on or the time cannot be inferred. */
  nextBlockTime(): bigint | string;
  chainId: bigint;
}

export interface InteropCheck {
  checkAccessList(entries: string[], minSafety: string, descriptor: Record<string, string>): Promise<void>;
}

/** supervisor_checkAccessList over JSON-RPC, dialled on first use (op-geth dials lazily too). */
export function supervisorClient(
  url: string,
  deps: { logger?: Logger } = {},
): InteropCheck & { close(): Promise<void> } {
  let client: RpcClient | undefined;
  return {
    async checkAccessList(entries, minSafety, descriptor) {
      client ??= new RpcClient({ url, timeoutMs: 10_000 }, { logger: deps.logger });
      await client.call('supervisor_checkAccessList', [entries, minSafety, descriptor]);
    },
    async close() {
      await client?.close();
    },
  };
}

export class InteropFilter {
  constructor(
    private readonly chain: InteropChain,
    private readonly supervisor: InteropCheck,
    private readonly logger?: Logger,
  ) {}

  /** True when the transaction may enter the pool. `firstSeen` is when it was received, in seconds. */
  async admit(tx: DecodedTx, firstSeen: bigint = BigInt(Math.floor(Date.now() / 1000))): Promise<boolean> {
    const entries = interopAccessList(tx);
    if (entries.length === 0) return true;
    const t = this.chain.nextBlockTime();
    if (typeof t === 'string') {
      this.logger?.debug('Refusing interop transaction', { reason: t });
      return false;
    }
    // Older than the pre-verifier window: it can no longer be included safely.
    if (firstSeen < t - INTEROP_PREVERIFY_TIMEOUT) return false;
    try {
      await this.supervisor.checkAccessList(entries, 'cross-unsafe', {
        timestamp: `0x${t.toString(16)}`,
        timeout: `0x${INTEROP_PREVERIFY_TIMEOUT.toString(16)}`,
        chainID: `0x${this.chain.chainId.toString(16)}`,
      });
      return true;
    } catch (err) {
      this.logger?.debug('Supervisor refused interop transaction', { err: (err as Error).message });
      return false;
    }
  }
}
