// Executes one block on the executor's flat state: the block-start system calls (EIP-4788 beacon root), every
// transaction with its receipt, the withdrawals, and the block's gas totals. Sender recovery happened before
// (worker pool); the state root is computed after (trie commitment). Prague's EIP-2935 history call and the
// EIP-7685 request system calls are not applied yet.
import { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import type { Block } from '../../primitives/block/block.js';
import { blobParamsAt, type ChainConfig, hardforkAt } from '../../primitives/chainConfig.js';
import { logsBloom, orBloom } from '../../primitives/receipt/bloom.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { type BlockEnv, createBlockEnv } from '../evm/env.js';
import type { Executor } from '../evm/transition.js';
import { applyTransaction } from '../evm/transition.js';

/** EIP-4788: the contract that keeps recent beacon block roots, and the caller of system calls. */
export const BEACON_ROOTS_ADDRESS = new Address(
  Uint8Array.from(Buffer.from('000f3df6d732807ef1319fb7b8bb8522d0beac02', 'hex')),
);
export const SYSTEM_ADDRESS = new Address(
  Uint8Array.from(Buffer.from('fffffffffffffffffffffffffffffffffffffffe', 'hex')),
);
const SYSTEM_CALL_GAS = 30_000_000n;
const GWEI = 1_000_000_000n;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

export interface BlockOutcome {
  receipts: Receipt[];
  gasUsed: bigint;
  blobGasUsed: bigint;
  logsBloom: Uint8Array;
}

/**
 * A call from the system address outside any transaction (geth's ProcessBeaconBlockRoot): no fees, no nonce,
 * and the system address is not left behind in the state.
 */
async function systemCall(executor: Executor, env: BlockEnv, to: Address, data: Uint8Array): Promise<void> {
  const { state, evm } = executor;
  if (!state.exists(to)) return;
  const existed = state.exists(SYSTEM_ADDRESS);
  state.checkpointSync();
  evm.journal.cleanJournal();
  await evm.runCall({
    block: env.evmBlock,
    gasPrice: 0n,
    origin: SYSTEM_ADDRESS,
    caller: SYSTEM_ADDRESS,
    gasLimit: SYSTEM_CALL_GAS,
    to,
    value: 0n,
    data,
    skipBalance: true,
    skipNonceIncrement: true,
  });
  await evm.journal.cleanup();
  if (!existed && state.exists(SYSTEM_ADDRESS)) state.removeAccount(SYSTEM_ADDRESS);
  state.finishTransaction();
  state.commitSync();
}

export interface ProcessBlockInput {
  executor: Executor;
  config: ChainConfig;
  block: Block;
  /** The recovered sender of each transaction. */
  senders: readonly Uint8Array[];
  /** Hashes of ancestors for BLOCKHASH. */
  getBlockHash: (number: bigint) => Uint8Array | undefined;
}

export async function processBlock(input: ProcessBlockInput): Promise<BlockOutcome> {
  const { executor, config, block } = input;
  const h = block.header;
  const blobParams = blobParamsAt(config, h.timestamp);
  const env = createBlockEnv({
    common: executor.common,
    hardfork: hardforkAt(config, h.number, h.timestamp),
    number: h.number,
    timestamp: h.timestamp,
    coinbase: new Address(h.coinbase),
    gasLimit: h.gasLimit,
    ...(h.baseFeePerGas !== undefined ? { baseFee: h.baseFeePerGas } : {}),
    prevRandao: h.mixHash,
    difficulty: h.difficulty,
    ...(h.excessBlobGas !== undefined ? { excessBlobGas: h.excessBlobGas } : {}),
    ...(h.parentBeaconBlockRoot !== undefined ? { parentBeaconBlockRoot: h.parentBeaconBlockRoot } : {}),
    ...(blobParams
      ? { blobBaseFeeUpdateFraction: blobParams.baseFeeUpdateFraction, maxBlobsPerBlock: blobParams.max }
      : {}),
    getBlockHash: input.getBlockHash,
  });
  const ctx = executor.startBlock(env);
  if (env.rules.cancun && h.parentBeaconBlockRoot !== undefined) {
    await systemCall(executor, env, BEACON_ROOTS_ADDRESS, h.parentBeaconBlockRoot);
  }

  const receipts: Receipt[] = [];
  const bloom = new Uint8Array(256);
  for (let i = 0; i < block.transactions.length; i++) {
    const raw = block.transactions[i] as Uint8Array;
    let tx: DecodedTx;
    let result: Awaited<ReturnType<typeof applyTransaction>>;
    try {
      tx = decodeTransaction(raw);
      result = await applyTransaction(ctx, tx, new Address(input.senders[i] as Uint8Array));
    } catch (err) {
      if (err instanceof TernError) {
        // The rule's code stays in the message (consensus tests and logs tell the reasons apart by it).
        throw new TernError(
          'BLOCK_INVALID_TX',
          `invalid transaction ${i} (${hex(keccak256(raw))}): ${err.code}: ${err.message}`,
        );
      }
      throw err;
    }
    const logs = result.logs.map(([address, topics, data]) => ({ address, topics, data }));
    const receiptBloom = logsBloom(logs);
    orBloom(bloom, receiptBloom);
    receipts.push({
      type: tx.type,
      status: result.status,
      cumulativeGasUsed: result.cumulativeGasUsed,
      logsBloom: receiptBloom,
      logs,
    });
  }

  for (const w of block.withdrawals ?? []) {
    if (w.amount === 0n) continue;
    executor.state.addBalance(new Address(w.address), w.amount * GWEI);
  }
  return { receipts, gasUsed: ctx.gasUsed, blobGasUsed: ctx.blobGasUsed, logsBloom: bloom };
}
