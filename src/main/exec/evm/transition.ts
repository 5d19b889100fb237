// The transaction-level state transition of tern-exec (geth's core/state_transition.go), around @ethereumjs/evm as
// the interpreter: validation (nonce, sender code, fee caps, blobs, balance, block gas, intrinsic gas, init code),
// gas purchase, EIP-2929/2930/3651 warm sets, EIP-7702 authorizations, the message call or creation, refunds
// (EIP-3529) and the EIP-7623 floor, the beneficiary's fee, EIP-6780 self-destructs and EIP-161 cleanup.
//
// All validation happens before the first state write, so a rejected transaction leaves the state untouched.
// Execution reads the flat state (./state/flatState.ts); nothing here touches a trie.
import type { Common } from '@ethereumjs/common';
import { type EVM, type EVMMockBlockchainInterface, getActivePrecompiles, type PrecompileFunc } from '@ethereumjs/evm';
import { Address, type PrefixedHexString, toChecksumAddress } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { isValidVersionedHash } from '../../primitives/tx/4844/blob.js';
import {
  authorizationSigningPayload,
  delegationCode,
  hasValidSignatureValues,
  nonceCanIncrease,
  parseDelegation,
  readAuthorization,
} from '../../primitives/tx/7702/authorization.js';
import { type FlatState, isEmptyCodeHash } from '../state/flatState.js';
import type { BlockContext, ExecutorCore, TxHooks } from './context.js';
import type { BlockEnv } from './env.js';
import { blobGas, cappedRefund, feeCap, MAX_UINT256, minBigint, tipCap } from './fees.js';
import {
  type AuthorizationBytes,
  type TransactionLike,
  TX_TYPE_ACCESS_LIST,
  TX_TYPE_BLOB,
  TX_TYPE_DEPOSIT,
  TX_TYPE_DYNAMIC_FEE,
  TX_TYPE_LEGACY,
  TX_TYPE_SET_CODE,
  type TxResult,
} from './interface.js';
import { createTernEVM, TernEVM } from './interp/evm.js';
import {
  floorDataGas,
  intrinsicGas,
  MAX_INITCODE_SIZE,
  MAX_TX_GAS,
  TX_AUTH_EMPTY_ACCOUNT_GAS,
  TX_AUTH_TUPLE_GAS,
} from './intrinsic.js';
import { finishExecution, prepareWarmSet, type TouchingJournal, unprefixed } from './message.js';
import { OpBlockFees } from './op/blockFees.js';
import { BASE_FEE_VAULT_ADDRESS, L1_FEE_VAULT_ADDRESS, OPERATOR_FEE_VAULT_ADDRESS } from './op/constants.js';
import { applyDeposit } from './op/deposit.js';
import { applyOpPrecompiles } from './op/precompiles.js';
import { installEvmPatches, installFastEipLookup } from './patches.js';
import { isPlainTransfer, plainTransfersExact, transferValue } from './plainTransfer.js';
import { recoverAddress } from './recover.js';

export type { BlockContext } from './context.js';

const MAX_UINT64 = (1n << 64n) - 1n;
const EMPTY = new Uint8Array(0);
const ZERO32 = new Uint8Array(32);

/** BLOCKHASH source handed to the EVM: answers from the environment of the block being executed. */
class BlockHashes implements EVMMockBlockchainInterface {
  env: BlockEnv | undefined;

  async getBlock(blockId: number): Promise<{ hash(): Uint8Array }> {
    const hash = this.env?.getBlockHash(BigInt(blockId)) ?? ZERO32;
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this;
  }
}

/** What an {@link Executor} is built from. */
export interface ExecutorOptions {
  /** The chain's Common; its hardfork is switched per block. Give it customCrypto.kzg (see ./kzg.ts) for Cancun. */
  common: Common;
  /** The state to execute on. */
  state: FlatState;
  /**
   * Run frames on tern's own interpreter where it is exact (./interp/; default true); false runs every frame on
   * @ethereumjs/evm's.
   */
  ternInterpreter?: boolean;
  /**
   * Apply a plain value transfer (to an account without code, not a precompile, untraced) as balance moves on the
   * flat state instead of an EVM message (./plainTransfer.ts; default true); false sends every call through the EVM.
   */
  plainTransfers?: boolean;
}

/** One EVM bound to one flat state and one Common: create once per executing thread, reuse for every block. */
export class Executor implements ExecutorCore {
  readonly common: Common;
  readonly state: FlatState;
  readonly evm: EVM;
  private readonly hashes: BlockHashes;
  private hardfork = '';
  /** The OP upgrades the precompile map was built for ('' on Ethereum chains). */
  private opKey = '';
  /** Active precompile addresses (unprefixed hex) of the current hardfork, warm in every transaction. */
  private precompiles: string[] = [];
  /** Tracer around each transaction (../tracing/); undefined for untraced execution. */
  tracer: TxHooks | undefined = undefined;
  /** Whether plain value transfers skip the EVM (ExecutorOptions.plainTransfers). */
  plainTransfersEnabled = true;
  /** Whether they may in the current block's fork (no EIP that charges or records a transfer differently). */
  plainTransfers = false;

  private constructor(common: Common, state: FlatState, evm: EVM, hashes: BlockHashes) {
    this.common = common;
    this.state = state;
    this.evm = evm;
    this.hashes = hashes;
  }

  static async create(opts: ExecutorOptions): Promise<Executor> {
    // Each patch reports whether it took (patches.ts); execution is correct without the speed-only ones.
    await installEvmPatches();
    installFastEipLookup(opts.common);
    // The KECCAK256 opcode hashes through customCrypto.keccak256, else @noble/hashes in JS (a quarter of an ERC-20
    // import profile): give it the native hasher unless the Common brought its own.
    opts.common.customCrypto.keccak256 ??= keccak256;
    const hashes = new BlockHashes();
    const evm = createTernEVM({ common: opts.common, stateManager: opts.state, blockchain: hashes });
    evm.ternInterpreter = opts.ternInterpreter ?? true;
    const executor = new Executor(opts.common, opts.state, evm, hashes);
    executor.plainTransfersEnabled = opts.plainTransfers ?? true;
    return executor;
  }

  /** Starts a block: switches the hardfork, points BLOCKHASH at the block's history, resets the gas counters. */
  startBlock(env: BlockEnv): BlockContext {
    if (env.common !== this.common) {
      throw new TernError('BLOCK_ENV', 'the block environment was built for another Common than the executor');
    }
    const opKey = env.op === undefined ? '' : JSON.stringify(env.op);
    if (this.hardfork !== env.hardfork || this.common.hardfork() !== env.hardfork || this.opKey !== opKey) {
      this.common.setHardfork(env.hardfork);
      this.hardfork = env.hardfork;
      this.opKey = opKey;
      // Rebuilt here too: an OP upgrade can change precompiles without an Ethereum hardfork change.
      const internals = this.evm as unknown as { _precompiles: Map<string, PrecompileFunc | undefined> };
      const active = getActivePrecompiles(this.common);
      if (env.op !== undefined) applyOpPrecompiles(active, env.op);
      internals._precompiles = active;
      // The OP precompile set is only in force if the EVM reads this field (checked, not assumed: patches.ts).
      if (this.evm.precompiles !== active) {
        throw new TernError('EVM_PATCH', '@ethereumjs/evm no longer reads its precompile map from _precompiles');
      }
      this.precompiles = Array.from(this.evm.precompiles.keys());
      this.plainTransfers = this.plainTransfersEnabled && plainTransfersExact(this.common);
    }
    this.hashes.env = env;
    const opFees = env.op === undefined ? undefined : new OpBlockFees(env.op, this.state);
    return { executor: this, env, gasUsed: 0n, blobGasUsed: 0n, opFees };
  }

  /** @internal Precompiles warm in every transaction (EIP-2929). */
  warmPrecompiles(): readonly string[] {
    return this.precompiles;
  }
}

function reject(code: string, message: string): TernError {
  return new TernError(code, message);
}

function typeSupported(type: number, rules: BlockEnv['rules']): boolean {
  switch (type) {
    case TX_TYPE_LEGACY:
      return true;
    case TX_TYPE_ACCESS_LIST:
      return rules.berlin;
    case TX_TYPE_DYNAMIC_FEE:
      return rules.london;
    case TX_TYPE_BLOB:
      return rules.cancun;
    case TX_TYPE_SET_CODE:
      return rules.prague;
    default:
      return false;
  }
}

/**
 * Applies one transaction from `sender` (recovered by the caller) to the executor's state. Throws a TernError with
 * a TR_… code (or SenderNotEOA) and geth's message when the transaction is invalid; the state is then unchanged.
 * A transaction whose execution fails is valid: it returns status 0 and pays for its gas.
 */
export function applyTransaction(block: BlockContext, tx: TransactionLike, sender: Address): Promise<TxResult> {
  const tracer = block.executor.tracer;
  return tracer === undefined ? applyUntraced(block, tx, sender) : applyTraced(tracer, block, tx, sender);
}

/** applyTransaction with the tracer told about the start and the end (a throw from onTxEnd aborts the caller). */
async function applyTraced(tracer: TxHooks, block: BlockContext, tx: TransactionLike, sender: Address) {
  tracer.onTxStart(block, tx, sender);
  let result: TxResult;
  try {
    result = await applyUntraced(block, tx, sender);
  } catch (err) {
    tracer.onTxEnd(undefined, err);
    throw err;
  }
  tracer.onTxEnd(result, undefined);
  return result;
}

async function applyUntraced(block: BlockContext, tx: TransactionLike, sender: Address): Promise<TxResult> {
  const { executor, env } = block;
  const { evm, state } = executor;
  const rules = env.rules;
  const type = tx.type;

  // Deposit transactions (0x7e) branch off here, before any of the checks below: they carry no signature, no fee
  // market and mint value; their transition is the rollup's.
  if (type === TX_TYPE_DEPOSIT) {
    if (env.op === undefined || tx.deposit === undefined) {
      throw reject('TR_TypeNotSupported', 'transaction type not supported: deposit transactions need an OP chain');
    }
    return applyDeposit(block, tx, tx.deposit);
  }
  if (!typeSupported(type, rules)) throw reject('TR_TypeNotSupported', `transaction type not supported: ${type}`);
  // OP chains carry no blobs (Ecotone takes Cancun's EVM without its blob transactions).
  if (type === TX_TYPE_BLOB && env.op !== undefined) {
    throw reject('TR_TypeNotSupported', 'transaction type not supported: blob transactions on an OP chain');
  }

  const to = tx.to;
  const isCreate = to === undefined;
  const gasLimit = tx.gasLimit;
  const blobHashes = type === TX_TYPE_BLOB ? (tx.blobVersionedHashes ?? []) : undefined;
  const blobCount = blobHashes?.length ?? 0;

  // A block holds at most maxBlobsPerBlock blobs: a transaction with more can never be included.
  if (blobCount > env.maxBlobsPerBlock) {
    throw reject(
      'TR_BLOBLIST_OVERSIZE',
      `blob gas exceeds maximum: ${blobCount} blobs, at most ${env.maxBlobsPerBlock}`,
    );
  }

  // --- preCheck: nonce, sender code, fee caps, blobs, authorizations (geth's order) ---
  const nonce = state.getNonce(sender);
  if (nonce < tx.nonce) {
    throw reject('TR_NonceTooHigh', `nonce too high: address ${hexOf(sender)}, tx: ${tx.nonce} state: ${nonce}`);
  }
  if (nonce > tx.nonce) {
    throw reject('TR_NonceTooLow', `nonce too low: address ${hexOf(sender)}, tx: ${tx.nonce} state: ${nonce}`);
  }
  if (nonce >= MAX_UINT64) {
    throw reject('TR_NonceHasMaxValue', `nonce has max value: address ${hexOf(sender)}, nonce: ${nonce}`);
  }
  if (rules.osaka && gasLimit > MAX_TX_GAS) {
    throw reject('TR_GasLimitTooHigh', `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${gasLimit})`);
  }
  // EIP-3607: the sender must not have code, unless it is an EIP-7702 delegation.
  if (!isEmptyCodeHash(state.getCodeHash(sender))) {
    const code = state.getCodeSync(sender);
    if (code.length > 0 && parseDelegation(code) === undefined) {
      throw reject('SenderNotEOA', `sender not an eoa: address ${hexOf(sender)}, len(code): ${code.length}`);
    }
  }
  const baseFee = env.baseFee;
  let gasPrice: bigint;
  const cap = feeCap(tx);
  if (rules.london && baseFee !== undefined) {
    const tip = tipCap(tx);
    if (cap > MAX_UINT256) {
      throw reject('TR_FeeCapVeryHigh', `max fee per gas higher than 2^256-1: address ${hexOf(sender)}`);
    }
    if (tip > MAX_UINT256) {
      throw reject('TR_TipVeryHigh', `max priority fee per gas higher than 2^256-1: address ${hexOf(sender)}`);
    }
    if (cap < tip) {
      throw reject(
        'TR_TipGtFeeCap',
        `max priority fee per gas higher than max fee per gas: address ${hexOf(sender)}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${cap}`,
      );
    }
    if (cap < baseFee) {
      throw reject(
        'TR_FeeCapLessThanBlocksBaseFee',
        `max fee per gas less than block base fee: address ${hexOf(sender)}, maxFeePerGas: ${cap}, baseFee: ${baseFee}`,
      );
    }
    gasPrice = minBigint(tip + baseFee, cap);
  } else {
    gasPrice = tx.gasPrice ?? cap;
  }
  if (blobHashes !== undefined) {
    if (isCreate) throw reject('TR_BLOBCREATE', 'blob transaction of type create');
    if (blobCount === 0) throw reject('TR_EMPTYBLOB', 'blob transaction missing blob hashes');
    for (let i = 0; i < blobCount; i++) {
      if (!isValidVersionedHash(blobHashes[i] as string)) {
        throw reject('TR_BLOBVERSION_INVALID', `blob ${i} has invalid hash version`);
      }
    }
  }
  const txBlobGas = blobGas(blobCount);
  const maxFeePerBlobGas = tx.maxFeePerBlobGas ?? 0n;
  const blobBaseFee = env.blobBaseFee ?? 0n;
  if (txBlobGas > 0n && maxFeePerBlobGas < blobBaseFee) {
    throw reject(
      'TR_BlobFeeCapTooLow',
      `max fee per blob gas less than block blob gas fee: address ${hexOf(sender)} blobGasFeeCap: ${maxFeePerBlobGas}, blobBaseFee: ${blobBaseFee}`,
    );
  }
  const authorizations = type === TX_TYPE_SET_CODE ? (tx.authorizationList ?? []) : undefined;
  if (authorizations !== undefined) {
    if (isCreate) {
      throw reject(
        'TR_SetCodeCreate',
        `EIP-7702 transaction cannot be used to create contract (sender ${hexOf(sender)})`,
      );
    }
    if (authorizations.length === 0) {
      throw reject('TR_EmptyAuthList', `EIP-7702 transaction with empty auth list (sender ${hexOf(sender)})`);
    }
  }

  // --- OP fees: the L1 data fee and the worst-case operator fee are bought with the gas (none for eth_call) ---
  const opFees = block.opFees;
  let l1Fee = 0n;
  let l1GasUsed = 0n;
  let operatorFeeMax = 0n;
  const encoded = tx.raw instanceof Uint8Array ? tx.raw : undefined;
  if (opFees !== undefined && encoded !== undefined) {
    const l1 = opFees.l1Cost(encoded);
    l1Fee = l1.fee;
    l1GasUsed = l1.gasUsed;
    operatorFeeMax = opFees.operatorFee(gasLimit);
  }

  // --- buyGas: balance for gasLimit · feeCap + value + blob gas · blob fee cap, then the block's gas pool ---
  const balanceNeeded = gasLimit * cap + tx.value + txBlobGas * maxFeePerBlobGas + l1Fee + operatorFeeMax;
  if (balanceNeeded > MAX_UINT256) {
    throw reject(
      'TR_NoFunds',
      `insufficient funds for gas * price + value: address ${hexOf(sender)} required balance exceeds 256 bits`,
    );
  }
  const balance = state.getBalance(sender);
  if (balance < balanceNeeded) {
    throw reject(
      'TR_NoFunds',
      `insufficient funds for gas * price + value: address ${hexOf(sender)} have ${balance} want ${balanceNeeded}`,
    );
  }
  if (gasLimit > env.gasLimit - block.gasUsed) {
    throw reject(
      'TR_GasLimitReached',
      `gas limit reached: tx gas ${gasLimit}, block gas left ${env.gasLimit - block.gasUsed}`,
    );
  }
  if (txBlobGas > 0n && block.blobGasUsed + txBlobGas > env.maxBlobGasPerBlock) {
    throw reject(
      'TR_BlobGasLimitReached',
      `blob gas limit reached: tx blob gas ${txBlobGas}, block blob gas used ${block.blobGasUsed}`,
    );
  }

  // --- intrinsic gas, the EIP-7623 floor, EIP-3860 init code size ---
  const intrinsic = intrinsicGas(
    {
      data: tx.data,
      isCreate,
      accessList: type === TX_TYPE_LEGACY ? undefined : tx.accessList,
      authorizationCount: authorizations?.length ?? 0,
    },
    rules,
  );
  if (gasLimit < intrinsic) {
    throw reject('TR_IntrinsicGas', `intrinsic gas too low: have ${gasLimit}, want ${intrinsic}`);
  }
  // EIP-7623 makes the calldata floor part of the intrinsic-gas rule (a limit below it is invalid as one below the
  // intrinsic cost is), so it shares that rule's code; the message stays geth's.
  const floor = rules.prague ? floorDataGas(tx.data) : 0n;
  if (gasLimit < floor) {
    throw reject('TR_IntrinsicGas', `insufficient gas for floor data gas cost: have ${gasLimit}, want ${floor}`);
  }
  if (rules.shanghai && isCreate && tx.data.length > MAX_INITCODE_SIZE) {
    throw reject(
      'TR_InitCodeLimitExceeded',
      `max initcode size exceeded: code size ${tx.data.length} limit ${MAX_INITCODE_SIZE}`,
    );
  }

  // --- the transaction is valid: from here on it is included, whatever its execution does ---
  const journal = evm.journal;
  // Decided before any write: buying the gas does not change the recipient's code or balance (unless it is the
  // sender, whose balance only goes down), and leaves the sender at least the value (the balance check above).
  const plain =
    to !== undefined &&
    authorizations === undefined &&
    executor.plainTransfers === true &&
    executor.tracer === undefined &&
    isPlainTransfer(state, evm, to, tx.value);
  // A call into code takes the EVM's top-level path of tern's own (./interp/evm.ts runTopCall) when its frame runs on
  // tern's interpreter; decided here too, before any write (without authorizations nothing below changes `to`).
  let topCode: Uint8Array | undefined;
  if (
    !plain &&
    to !== undefined &&
    authorizations === undefined &&
    executor.tracer === undefined &&
    evm instanceof TernEVM &&
    !isEmptyCodeHash(state.getCodeHash(to)) &&
    state.getBalance(to) + tx.value <= MAX_UINT256
  ) {
    const code = state.getCodeSync(to);
    if (evm.topCallAdmitted(to, code, gasLimit - intrinsic)) topCode = code;
  }
  const depth = state.checkpointDepth;
  state.checkpointSync();
  try {
    // No code runs in a plain transfer: the warm sets would never be read.
    if (plain) journal.cleanJournal();
    else prepareWarmSet(block, sender, to, type === TX_TYPE_LEGACY ? undefined : tx.accessList);

    // Buy the gas, bump the nonce (before the creation address is derived from it).
    state.subBalance(sender, gasLimit * gasPrice + txBlobGas * blobBaseFee + l1Fee + operatorFeeMax);
    state.setNonce(sender, nonce + 1n);

    let authRefund = 0n;
    if (authorizations !== undefined) authRefund = applyAuthorizations(state, journal, env.chainId, authorizations);

    const execGas = gasLimit - intrinsic;
    const result = plain
      ? { execResult: transferValue(state, journal, sender, to as Address, tx.value), createdAddress: undefined }
      : topCode !== undefined
        ? await (evm as TernEVM).runTopCall({
            block: env.evmBlock,
            gasPrice,
            caller: sender,
            to: to as Address,
            value: tx.value,
            data: tx.data,
            gasLimit: execGas,
            blobVersionedHashes: blobHashes as PrefixedHexString[] | undefined,
            code: topCode,
          })
        : await evm.runCall({
            block: env.evmBlock,
            gasPrice,
            origin: sender,
            caller: sender,
            gasLimit: execGas,
            to,
            value: tx.value,
            data: tx.data,
            blobVersionedHashes: blobHashes as PrefixedHexString[] | undefined,
            skipNonceIncrement: true,
          });
    const exec = result.execResult;

    // Gas used, less the refund (capped at a fifth of it, EIP-3529), at least the calldata floor (EIP-7623).
    let gasUsed = intrinsic + exec.executionGasUsed;
    gasUsed -= cappedRefund(gasUsed, (exec.gasRefund ?? 0n) + authRefund, rules.london);
    if (gasUsed < floor) gasUsed = floor;

    // The unused operator fee goes back with the unused gas (Isthmus: charged on the gas actually used).
    const operatorFee = opFees !== undefined && operatorFeeMax > 0n ? opFees.operatorFee(gasUsed) : 0n;
    state.addBalance(sender, (gasLimit - gasUsed) * gasPrice + (operatorFeeMax - operatorFee));
    const coinbase = env.coinbase;
    const tipPerGas = rules.london && baseFee !== undefined ? gasPrice - baseFee : gasPrice;
    state.addBalance(coinbase, gasUsed * tipPerGas);
    // Touched even when the fee is zero: an empty beneficiary is removed below (EIP-161).
    (journal as unknown as TouchingJournal).touchAccount(unprefixed(coinbase.bytes));
    if (opFees !== undefined) {
      // OP chains keep the base fee (BaseFeeVault) and pay the L1 data and operator fees to their vaults.
      if (baseFee !== undefined) state.addBalance(BASE_FEE_VAULT_ADDRESS, gasUsed * baseFee);
      if (l1Fee > 0n) state.addBalance(L1_FEE_VAULT_ADDRESS, l1Fee);
      if (operatorFee > 0n) state.addBalance(OPERATOR_FEE_VAULT_ADDRESS, operatorFee);
    }

    // Self-destructs (EIP-6780) and EIP-161: touched accounts left empty are removed.
    await finishExecution(block, exec);
    state.finishTransaction();
    state.commitSync();

    block.gasUsed += gasUsed;
    // From Jovian the header's blobGasUsed holds the block's DA footprint (no blobs on OP chains).
    const daFootprint = opFees?.forks.jovian === true && encoded !== undefined ? opFees.daFootprint(l1GasUsed) : 0n;
    block.blobGasUsed += txBlobGas + daFootprint;
    const failed = exec.exceptionError !== undefined;
    return {
      ...(opFees !== undefined ? { l1Fee, l1GasUsed, operatorFee, daFootprint } : {}),
      status: failed ? 0 : 1,
      gasUsed,
      cumulativeGasUsed: block.gasUsed,
      blobGasUsed: txBlobGas,
      effectiveGasPrice: gasPrice,
      logs: (exec.logs ?? []) as TxResult['logs'],
      contractAddress: isCreate && !failed ? result.createdAddress : undefined,
      returnValue: exec.returnValue ?? EMPTY,
      error: exec.exceptionError?.error,
    };
  } catch (err) {
    // An internal failure (not an invalid transaction): leave the state as it was before the transaction.
    while (state.checkpointDepth > depth) state.revertSync();
    state.finishTransaction();
    journal.cleanJournal();
    throw err;
  }
}

/**
 * EIP-7702: applies each valid authorization (skipping invalid ones, as geth does) and returns the refund owed for
 * authorities that already existed (PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST each).
 */
function applyAuthorizations(
  state: FlatState,
  journal: EVM['journal'],
  chainId: bigint,
  list: readonly AuthorizationBytes[],
): bigint {
  let refund = 0n;
  for (let i = 0; i < list.length; i++) {
    const auth = readAuthorization(list[i] as AuthorizationBytes);
    if (auth.chainId !== 0n && auth.chainId !== chainId) continue;
    if (!nonceCanIncrease(auth.nonce)) continue;
    if (!hasValidSignatureValues(auth)) continue;
    const authorityBytes = recoverAddress(
      keccak256(authorizationSigningPayload(auth)),
      auth.r,
      auth.s,
      Number(auth.yParity),
    );
    if (authorityBytes === undefined) continue;
    const authority = new Address(authorityBytes);
    // Warm even when the authorization turns out invalid below.
    journal.addAlwaysWarmAddress(unprefixed(authorityBytes));
    const code = state.getCodeSync(authority);
    if (code.length !== 0 && parseDelegation(code) === undefined) continue;
    if (state.getNonce(authority) !== auth.nonce) continue;
    if (state.exists(authority)) refund += TX_AUTH_EMPTY_ACCOUNT_GAS - TX_AUTH_TUPLE_GAS;
    state.setNonce(authority, auth.nonce + 1n);
    state.setCode(authority, isZeroAddress(auth.address) ? EMPTY : delegationCode(auth.address));
  }
  return refund;
}

function isZeroAddress(a: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
}

/** geth prints addresses in their EIP-55 checksummed form. */
function hexOf(address: Address): string {
  return toChecksumAddress(address.toString());
}
