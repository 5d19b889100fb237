// Executes one block on the executor's flat state: the irregular and system changes at block start (Canyon's
// create2deployer, EIP-4788 beacon root, EIP-2935 parent hash), every transaction with its receipt, the Prague
// requests (EIP-6110 deposits from logs, EIP-7002 and EIP-7251 queues; none on OP chains), the withdrawals, and
// the block's totals. Sender recovery happened before (worker pool); the state root is computed after (trie
// commitment). Deposits (0x7e) need no recovered sender: their `from` is part of the transaction.
import { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import type { Block } from '../../primitives/block/block.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { logsBloom, orBloom } from '../../primitives/receipt/bloom.js';
import type { Log, Receipt } from '../../primitives/receipt/receipt.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { blockEnv } from '../evm/executor.js';
import type { TxResult } from '../evm/interface.js';
import { ensureCreate2Deployer } from '../evm/op/create2deployer.js';
import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_QUEUE_ADDRESS,
  CONSOLIDATION_REQUEST_TYPE,
  DEPOSIT_REQUEST_TYPE,
  depositRequests,
  dequeueRequests,
  EMPTY_REQUESTS_HASH,
  HISTORY_STORAGE_ADDRESS,
  MAINNET_DEPOSIT_CONTRACT,
  requestsHash,
  systemCall,
  WITHDRAWAL_QUEUE_ADDRESS,
  WITHDRAWAL_REQUEST_TYPE,
} from '../evm/system.js';
import type { Executor } from '../evm/transition.js';
import { applyTransaction } from '../evm/transition.js';

export { BEACON_ROOTS_ADDRESS };

const GWEI = 1_000_000_000n;

export interface BlockOutcome {
  receipts: Receipt[];
  /** Per transaction: gas, fees (OP: l1Fee, operatorFee, daFootprint), created address, error. */
  results: TxResult[];
  gasUsed: bigint;
  /** Blob gas used; from Jovian on an OP chain, the block's DA footprint. */
  blobGasUsed: bigint;
  logsBloom: Uint8Array;
  /** EIP-7685 requests hash from Prague (OP chains: always sha256 of nothing); compare with the header's. */
  requestsHash?: Uint8Array;
  /** The EIP-7685 requests (type byte ‖ data, nonempty ones) for engine_getPayloadV4; empty on OP chains. */
  requests?: Uint8Array[];
}

export interface ProcessBlockInput {
  executor: Executor;
  config: ChainConfig;
  block: Block;
  /**
   * The recovered sender of each transaction (any value for deposits), or a lookup awaited per transaction when
   * recovery is still under way (its errors end the block as they are).
   */
  senders: readonly Uint8Array[] | ((index: number) => Promise<Uint8Array>);
  /** Hashes of ancestors for BLOCKHASH. */
  getBlockHash: (number: bigint) => Uint8Array | undefined;
}

/** The block's body breaks a rule (not a transaction's): the importer reports the block invalid. */
function invalidBody(message: string): never {
  throw new TernError('BLOCK_INVALID_BODY', message);
}

/** A transaction's rule broken: its code stays in the message (consensus tests and logs tell reasons apart by it). */
function invalidTx(err: unknown, i: number, raw: Uint8Array): unknown {
  if (!(err instanceof TernError)) return err;
  return new TernError(
    'BLOCK_INVALID_TX',
    `invalid transaction ${i} (${hex(keccak256(raw))}): ${err.code}: ${err.message}`,
  );
}

export async function processBlock(input: ProcessBlockInput): Promise<BlockOutcome> {
  const { executor, config, block } = input;
  const h = block.header;
  const env = blockEnv(config, executor.common, h, input.getBlockHash);
  const op = env.op;
  if (op?.canyon === true && block.withdrawals !== undefined && block.withdrawals.length > 0) {
    invalidBody(`OP blocks carry no withdrawals: the block has ${block.withdrawals.length}`);
  }
  const ctx = executor.startBlock(env);
  ensureCreate2Deployer(config, h.timestamp, executor.state);
  if (env.rules.cancun && h.parentBeaconBlockRoot !== undefined) {
    await systemCall(executor, env, BEACON_ROOTS_ADDRESS, h.parentBeaconBlockRoot);
  }
  if (env.rules.prague) await systemCall(executor, env, HISTORY_STORAGE_ADDRESS, h.parentHash);

  const { senders } = input;
  const receipts: Receipt[] = [];
  const results: TxResult[] = [];
  const allLogs: Log[] = [];
  const bloom = new Uint8Array(256);
  for (let i = 0; i < block.transactions.length; i++) {
    const raw = block.transactions[i] as Uint8Array;
    let tx: DecodedTx;
    let result: TxResult;
    try {
      tx = decodeTransaction(raw);
    } catch (err) {
      throw invalidTx(err, i, raw);
    }
    const sender =
      tx.deposit !== undefined
        ? tx.deposit.from
        : typeof senders === 'function'
          ? await senders(i)
          : (senders[i] as Uint8Array);
    try {
      result = await applyTransaction(ctx, tx, new Address(sender));
    } catch (err) {
      throw invalidTx(err, i, raw);
    }
    const logs = result.logs.map(([address, topics, data]) => ({ address, topics, data }));
    for (const l of logs) allLogs.push(l);
    const receiptBloom = logsBloom(logs);
    orBloom(bloom, receiptBloom);
    const receipt: Receipt = {
      type: tx.type,
      status: result.status,
      cumulativeGasUsed: result.cumulativeGasUsed,
      logsBloom: receiptBloom,
      logs,
    };
    // Deposit receipts commit to the sender's nonce from Regolith, and carry version 1 from Canyon.
    if (result.depositNonce !== undefined) {
      receipt.depositNonce = result.depositNonce;
      if (op?.canyon === true) receipt.depositReceiptVersion = 1n;
    }
    receipts.push(receipt);
    results.push(result);
  }

  const outcome: BlockOutcome = {
    receipts,
    results,
    gasUsed: ctx.gasUsed,
    blobGasUsed: ctx.blobGasUsed,
    logsBloom: bloom,
  };
  if (env.rules.prague) {
    if (op !== undefined) {
      // OP chains no-op EIP-7685: no deposit parsing, no queue system calls (isthmus/exec-engine.md).
      outcome.requestsHash = EMPTY_REQUESTS_HASH;
      outcome.requests = [];
    } else {
      try {
        const list: Array<[number, Uint8Array]> = [
          [DEPOSIT_REQUEST_TYPE, depositRequests(allLogs, config.depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT)],
          [WITHDRAWAL_REQUEST_TYPE, await dequeueRequests(executor, env, WITHDRAWAL_QUEUE_ADDRESS, 'withdrawal')],
          [
            CONSOLIDATION_REQUEST_TYPE,
            await dequeueRequests(executor, env, CONSOLIDATION_QUEUE_ADDRESS, 'consolidation'),
          ],
        ];
        outcome.requestsHash = requestsHash(list);
        outcome.requests = list
          .filter(([, d]) => d.length > 0)
          .map(([t, d]) => new Uint8Array(Buffer.concat([Uint8Array.of(t), d])));
      } catch (err) {
        if (err instanceof TernError && err.code === 'BLOCK_REQUESTS') invalidBody(err.message);
        throw err;
      }
    }
  }

  for (const w of block.withdrawals ?? []) {
    if (w.amount === 0n) continue;
    executor.state.addBalance(new Address(w.address), w.amount * GWEI);
  }
  return outcome;
}
