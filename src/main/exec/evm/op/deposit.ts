// The deposit transaction (0x7e) state transition (specs/protocol/deposits.md "Execution", regolith/overview.md):
// no signature, nonce, fee or L1 cost; `mint` is credited first and kept even when the deposit fails; a failed
// deposit rolls back to just after the mint, bumps the sender's nonce and uses its whole gas limit. Before Regolith
// a deposit reports its gas limit as used (a system transaction 0, and it stays out of the block gas pool); from
// Regolith the gas actually used (after refunds), system transactions being invalid deposits.
import { Address } from '@ethereumjs/util';
import { TernError } from '../../../common/errors.js';
import type { BlockContext } from '../context.js';
import { cappedRefund } from '../fees.js';
import type { DepositFields, TransactionLike, TxResult } from '../interface.js';
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE } from '../intrinsic.js';
import { finishExecution, prepareWarmSet } from '../message.js';

const EMPTY = new Uint8Array(0);

/** Applies a deposit. Throws TR_GasLimitReached (the block is invalid) when the block's gas cannot hold it. */
export async function applyDeposit(
  block: BlockContext,
  tx: TransactionLike,
  deposit: DepositFields,
): Promise<TxResult> {
  const { executor, env } = block;
  const { state, evm } = executor;
  const rules = env.rules;
  const regolith = env.op?.regolith === true;
  const from = new Address(deposit.from);
  const gasLimit = tx.gasLimit;
  const to = tx.to;
  const isCreate = to === undefined;

  // Pre-Regolith system transactions stay outside the block gas pool; everything else must fit in it.
  const usesPool = !deposit.isSystemTx || regolith;
  if (usesPool && gasLimit > env.gasLimit - block.gasUsed) {
    throw new TernError(
      'TR_GasLimitReached',
      `gas limit reached: deposit gas ${gasLimit}, block gas left ${env.gasLimit - block.gasUsed}`,
    );
  }

  const depth = state.checkpointDepth;
  state.checkpointSync();
  try {
    if (deposit.mint > 0n) state.addBalance(from, deposit.mint);
    const nonce = state.getNonce(from);
    // Everything from here is undone if the deposit fails; the mint above is not.
    state.checkpointSync();

    const intrinsic = intrinsicGas({ data: tx.data, isCreate }, rules);
    const floor = rules.prague ? floorDataGas(tx.data) : 0n;
    let failure: string | undefined;
    if (deposit.isSystemTx && regolith) failure = 'system transactions are not supported from Regolith';
    else if (gasLimit < intrinsic) failure = `intrinsic gas too low: have ${gasLimit}, want ${intrinsic}`;
    else if (gasLimit < floor) failure = `insufficient gas for floor data gas cost: have ${gasLimit}, want ${floor}`;
    else if (tx.value > 0n && state.getBalance(from) < tx.value) failure = 'insufficient funds for transfer';
    else if (rules.shanghai && isCreate && tx.data.length > MAX_INITCODE_SIZE) failure = 'max initcode size exceeded';

    let result: TxResult;
    if (failure !== undefined) {
      state.revertSync();
      state.setNonce(from, nonce + 1n);
      evm.journal.cleanJournal();
      result = failedDeposit(block, deposit, gasLimit, regolith, nonce, failure);
    } else {
      prepareWarmSet(block, from, to, undefined);
      state.setNonce(from, nonce + 1n);
      const run = await evm.runCall({
        block: env.evmBlock,
        gasPrice: 0n,
        origin: from,
        caller: from,
        gasLimit: gasLimit - intrinsic,
        to,
        value: tx.value,
        data: tx.data,
        skipNonceIncrement: true,
      });
      const exec = run.execResult;
      let gasUsed: bigint;
      if (regolith) {
        gasUsed = intrinsic + exec.executionGasUsed;
        gasUsed -= cappedRefund(gasUsed, exec.gasRefund ?? 0n, rules.london);
        if (gasUsed < floor) gasUsed = floor;
      } else {
        gasUsed = deposit.isSystemTx ? 0n : gasLimit;
      }
      await finishExecution(block, exec);
      state.commitSync();
      const failed = exec.exceptionError !== undefined;
      block.gasUsed += gasUsed;
      result = {
        status: failed ? 0 : 1,
        gasUsed,
        cumulativeGasUsed: block.gasUsed,
        blobGasUsed: 0n,
        effectiveGasPrice: 0n,
        logs: (exec.logs ?? []) as TxResult['logs'],
        contractAddress: isCreate && !failed ? run.createdAddress : undefined,
        returnValue: exec.returnValue ?? EMPTY,
        error: exec.exceptionError?.error,
        ...(regolith ? { depositNonce: nonce } : {}),
      };
    }
    state.finishTransaction();
    state.commitSync();
    return result;
  } catch (err) {
    while (state.checkpointDepth > depth) state.revertSync();
    state.finishTransaction();
    evm.journal.cleanJournal();
    throw err;
  }
}

function failedDeposit(
  block: BlockContext,
  deposit: DepositFields,
  gasLimit: bigint,
  regolith: boolean,
  nonce: bigint,
  reason: string,
): TxResult {
  // A failed deposit is recorded as using all its gas (a pre-Regolith system transaction none).
  const gasUsed = deposit.isSystemTx && !regolith ? 0n : gasLimit;
  block.gasUsed += gasUsed;
  return {
    status: 0,
    gasUsed,
    cumulativeGasUsed: block.gasUsed,
    blobGasUsed: 0n,
    effectiveGasPrice: 0n,
    logs: [],
    contractAddress: undefined,
    returnValue: EMPTY,
    error: `failed deposit: ${reason}`,
    ...(regolith ? { depositNonce: nonce } : {}),
  };
}
