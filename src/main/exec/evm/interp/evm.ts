// The EVM tern executes with: @ethereumjs/evm's EVM with its frame interpreter replaced, through the protected
// runInterpreter method a subclass may override, by tern's own (./frame.ts) wherever that is exact. Per frame,
// before anything runs, it falls back to @ethereumjs/evm's interpreter (super.runInterpreter) when the code can
// reach an opcode ./frame.ts does not implement, for a fork or EIP it does not model, under a step listener or
// debug logging (tracing sees ethereumjs's steps), with custom opcodes, or for EOF code. Both give the same
// ExecResult (returnValue, executionGasUsed, gas, gasRefund, logs, selfdestruct, createdAddresses, exceptionError);
// tern's carries no runState (nothing in tern or in @ethereumjs/vm reads it).
// Calls and creations inside a frame run their sub-messages through runCall (./calls.ts); a transaction's own call
// into code may skip runCall's set-up altogether (runTopCall, chosen by ../transition.ts before anything is written).
import { ConsensusAlgorithm, Hardfork } from '@ethereumjs/common';
import {
  EVM,
  type EVMOpts,
  type EVMResult,
  type ExecResult,
  type Log,
  type Message,
  NobleBN254,
} from '@ethereumjs/evm';
import { type Address, createZeroAddress, type PrefixedHexString } from '@ethereumjs/util';
import { keccak256 } from '../../../native/keccak.js';
import { FlatState } from '../../state/flatState.js';
import { WarmJournal } from '../warmJournal.js';
import { analyse, type CodeAnalysis, type GasTable, gasTableOf, type OpcodeTableEntry } from './analysis.js';
import type { CallHost } from './calls.js';
import { type FrameState, type GasParams, runFrame } from './frame.js';

/** Forks whose gas rules ./frame.ts implements (EIP-2929 access lists, EIP-2200/3529 SSTORE since Istanbul, EIP-1153, EIP-5656). */
const FORKS: ReadonlySet<string> = new Set([Hardfork.Cancun, Hardfork.Prague]);
/** EIPs that change what a legacy frame does and that ./frame.ts does not model. */
const UNMODELLED_EIPS = [3540, 6800, 7708, 7709, 7864, 7928, 8037, 8038, 8024, 7843, 7939];
/** Frames are admitted with at most this much gas (so memory gas stays exact in doubles; no block comes near). */
const MAX_FRAME_GAS = 2n ** 40n;
const PARAM_NAMES = [
  'memoryGas',
  'quadCoefficientDivGas',
  'keccak256WordGas',
  'copyGas',
  'logTopicGas',
  'logDataGas',
  'expByteGas',
  'coldsloadGas',
  'warmstoragereadGas',
  'sstoreSentryEIP2200Gas',
  'sstoreNoopEIP2200Gas',
  'sstoreInitEIP2200Gas',
  'sstoreCleanEIP2200Gas',
  'sstoreClearRefundEIP2200Gas',
  'sstoreInitRefundEIP2200Gas',
  'sstoreCleanRefundEIP2200Gas',
  'sstoreDirtyEIP2200Gas',
  'sstoreResetGas',
  'coldaccountaccessGas',
  'callStipendGas',
  'callValueTransferGas',
  'callNewAccountGas',
  'initCodeWordGas',
  'maxInitCodeSize',
  'selfdestructRefundGas',
  'stackLimit',
] as const;

/** Counts of frames run by each interpreter, and of transactions' calls run by runTopCall (benchmark and tests). */
export const interpreterStats = { tern: 0, ethereumjs: 0, topCalls: 0 };

/** The options ethereumjs passes to runInterpreter (its type is not exported). */
interface InterpreterOpts {
  pc?: number;
  initialLogs?: Log[];
}

/** A fork's gas table and parameters, for frames on tern's interpreter. */
interface ForkInfo {
  readonly table: GasTable;
  readonly params: GasParams;
  /** EIP-7702: calls into a delegated account also access its target (Prague on). */
  readonly delegations: boolean;
}

/** The message fields a frame reads. */
interface FrameMessage {
  readonly code: Uint8Array;
  readonly address: Address;
  readonly caller: Address;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly isStatic: boolean;
  readonly gasLimit: bigint;
  readonly gasRefund: bigint;
  readonly blobVersionedHashes: PrefixedHexString[];
  readonly depth: number;
  readonly selfdestruct: Map<PrefixedHexString, PrefixedHexString>;
  readonly createdAddresses: Set<PrefixedHexString> | undefined;
}

/** A transaction's call into code, as ./transition.ts hands it to runTopCall. */
export interface TopCall {
  readonly block: NonNullable<EVM['_block']>;
  readonly gasPrice: bigint;
  readonly caller: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly data: Uint8Array;
  /** The gas left for execution (the transaction's limit less the intrinsic gas). */
  readonly gasLimit: bigint;
  readonly blobVersionedHashes: PrefixedHexString[] | undefined;
  /** `to`'s code. */
  readonly code: Uint8Array;
}

/** An EVM whose frames run on tern's interpreter where it is exact. */
export class TernEVM extends EVM {
  /** Per opcode table (one per hardfork): whether the fork is modelled, its gas table and parameters. */
  private readonly forkInfo = new WeakMap<object, ForkInfo | null>();

  /** Turns tern's interpreter off (every frame on ethereumjs's), for comparisons. */
  ternInterpreter = true;

  /** Sub-messages of tern's frames run through this EVM's message execution. */
  private readonly host: CallHost = { runMessage: (message) => this.runCall({ message }) };

  constructor(opts: EVMOpts) {
    super(opts);
    // tern's journal in place of ethereumjs's (same answers, compact keys): the public field both interpreters and
    // runCall read. A frame runs on tern's interpreter only while it is in place (evmAdmitted).
    this.journal = new WarmJournal(this.stateManager, this.common) as unknown as EVM['journal'];
  }

  protected override async runInterpreter(message: Message, opts: InterpreterOpts = {}): Promise<ExecResult> {
    const fork = this.ternInterpreter ? this.admit(message, opts) : null;
    if (fork === null) {
      interpreterStats.ethereumjs++;
      return super.runInterpreter(message, opts);
    }
    const code = message.code as Uint8Array;
    const analysis = analyse(code, fork.table);
    if (!analysis.supported) {
      interpreterStats.ethereumjs++;
      return super.runInterpreter(message, opts);
    }
    const caller = message.caller ?? createZeroAddress();
    return this.frame(fork, analysis, {
      code,
      address: message.to ?? createZeroAddress(),
      caller,
      value: message.value ?? 0n,
      data: message.data ?? Uint8Array.from([0]),
      isStatic: message.isStatic ?? false,
      gasLimit: message.gasLimit,
      gasRefund: message.gasRefund,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      depth: message.depth ?? 0,
      // The maps ethereumjs's interpreter would write its results into (the message's, copied by the calling frame).
      selfdestruct: message.selfdestruct ?? new Map(),
      createdAddresses: message.createdAddresses,
    });
  }

  /**
   * A transaction's own call into code (gas bought, nonce raised, warm sets prepared by ./transition.ts), as
   * runCall runs it at depth 0 — checkpoint, value transfer, the frame, transient storage cleared, commit or revert
   * — without its Message, account objects and events. Only for calls topCallAdmitted() accepted.
   */
  async runTopCall(c: TopCall): Promise<EVMResult> {
    this._block = c.block;
    this._tx = { gasPrice: c.gasPrice, origin: c.caller };
    interpreterStats.topCalls++;
    const fork = this.evmAdmitted() as ForkInfo;
    const analysis = analyse(c.code, fork.table);
    const state = this.stateManager as FlatState;
    await this.journal.checkpoint();
    this.transientStorage.checkpoint();
    // runCall's value transfer; both accounts exist and stay non-empty (the sender has a nonce, the recipient code),
    // so their EIP-161 touches change nothing.
    if (c.value !== 0n) {
      state.subBalance(c.caller, c.value);
      state.addBalance(c.to, c.value);
    }
    const exec = await this.frame(fork, analysis, {
      code: c.code,
      address: c.to,
      caller: c.caller,
      value: c.value,
      data: c.data,
      isStatic: false,
      gasLimit: c.gasLimit,
      gasRefund: 0n,
      blobVersionedHashes: c.blobVersionedHashes ?? [],
      depth: 0,
      selfdestruct: new Map(),
      createdAddresses: new Set(),
    });
    this.transientStorage.clear();
    if (exec.exceptionError !== undefined) {
      exec.gasRefund = 0n;
      await this.journal.revert();
      this.transientStorage.revert();
    } else {
      await this.journal.commit();
      this.transientStorage.commit();
    }
    return { execResult: exec };
  }

  /**
   * Whether a transaction's call to `to`, whose code is `code`, may take runTopCall: tern's interpreter runs its
   * frame, nothing listens to messages, the code is neither EOF nor an EIP-7702 delegation, `to` is no precompile.
   */
  topCallAdmitted(to: Address, code: Uint8Array, gasLimit: bigint): boolean {
    if (!this.ternInterpreter || !(this.stateManager instanceof FlatState)) return false;
    if (code.length === 0 || code[0] === 0xef || gasLimit > MAX_FRAME_GAS) return false;
    if (this.events.listenerCount('beforeMessage') > 0 || this.events.listenerCount('afterMessage') > 0) return false;
    if (this.getPrecompile(to) !== undefined) return false;
    const fork = this.evmAdmitted();
    return fork !== null && analyse(code, fork.table).supported;
  }

  /** Runs one frame on tern's interpreter and gives its ExecResult as ethereumjs's runInterpreter would. */
  private async frame(fork: ForkInfo, analysis: CodeAnalysis, m: FrameMessage): Promise<ExecResult> {
    interpreterStats.tern++;
    const block = this._block as NonNullable<EVM['_block']>;
    const tx = this._tx as NonNullable<EVM['_tx']>;
    const out = await runFrame({
      code: m.code,
      analysis,
      table: fork.table,
      params: fork.params,
      delegations: fork.delegations,
      address: m.address,
      self: addressWord(m.address.bytes),
      caller: addressWord(m.caller.bytes),
      origin: addressWord((tx.origin ?? m.caller).bytes),
      callValue: m.value,
      callData: m.data,
      isStatic: m.isStatic,
      gasLimit: Number(m.gasLimit),
      gasRefund: Number(m.gasRefund),
      gasPrice: tx.gasPrice,
      chainId: this.common.chainId(),
      block: block.header,
      blobVersionedHashes: m.blobVersionedHashes,
      blockHash: this.blockHash,
      state: this.stateManager as unknown as FrameState,
      sync: this.stateManager instanceof FlatState ? this.stateManager : undefined,
      journal: this.journal as unknown as WarmJournal,
      transient: this.transientStorage,
      keccak: this.common.customCrypto.keccak256 ?? keccak256,
      depth: m.depth,
      selfdestruct: m.selfdestruct,
      createdAddresses: m.createdAddresses ?? new Set(),
      host: this.host,
    });
    const err = out.exceptionError;
    const failed = err !== undefined;
    let gasUsed = m.gasLimit - BigInt(out.gasLeft);
    if (failed && err.error !== 'revert') gasUsed = m.gasLimit;
    return {
      logs: failed ? [] : out.logs,
      returnValue: out.returnValue ?? new Uint8Array(0),
      selfdestruct: failed ? new Map() : m.selfdestruct,
      ...(failed
        ? { createdAddresses: new Set() }
        : m.createdAddresses
          ? { createdAddresses: m.createdAddresses }
          : {}),
      exceptionError: err,
      gas: BigInt(out.gasLeft),
      executionGasUsed: gasUsed,
      gasRefund: BigInt(out.gasRefund),
      stateGasSpilled: 0n,
    } as ExecResult;
  }

  private readonly blockHash = async (n: number): Promise<Uint8Array> => (await this.blockchain.getBlock(n)).hash();

  /** The fork's tables when this frame may run on tern's interpreter, else null. */
  private admit(message: Message, opts: InterpreterOpts): ForkInfo | null {
    if (opts.initialLogs !== undefined || (opts.pc ?? 0) !== 0) return null;
    if (this._block === undefined || this._tx === undefined) return null;
    if (!(message.code instanceof Uint8Array) || message.code[0] === 0xef) return null;
    if (message.gasLimit > MAX_FRAME_GAS || message.gasRefund > MAX_FRAME_GAS || message.gasRefund < 0n) return null;
    return this.evmAdmitted();
  }

  /** The fork's tables when this EVM's frames may run on tern's interpreter at all, else null. */
  private evmAdmitted(): ForkInfo | null {
    if (this.DEBUG || this.events.listenerCount('step') > 0) return null;
    if (this._optsCached.profiler?.enabled === true) return null;
    if (this._customOpcodes !== undefined && this._customOpcodes.length > 0) return null;
    if (this.allowUnlimitedInitCodeSize) return null;
    if (!((this.journal as unknown) instanceof WarmJournal)) return null;
    const opcodeMap = this._opcodeMap as unknown as object;
    let info = this.forkInfo.get(opcodeMap);
    if (info === undefined) {
      info = this.forkInfoFor(opcodeMap);
      this.forkInfo.set(opcodeMap, info);
    }
    return info;
  }

  private forkInfoFor(opcodeMap: object): ForkInfo | null {
    const common = this.common;
    if (!FORKS.has(common.hardfork())) return null;
    // COINBASE under Clique is the recovered signer, which ./frame.ts does not model.
    if (common.consensusAlgorithm() === ConsensusAlgorithm.Clique) return null;
    for (const eip of UNMODELLED_EIPS) if (common.isActivatedEIP(eip)) return null;
    for (const eip of [1153, 2929, 3529, 3855, 4399, 5656]) if (!common.isActivatedEIP(eip)) return null;
    const table = gasTableOf(opcodeMap as ReadonlyArray<OpcodeTableEntry>);
    if (table === null) return null;
    const params = {} as Record<(typeof PARAM_NAMES)[number], number>;
    for (const name of PARAM_NAMES) {
      const v = common.param(name);
      if (typeof v !== 'bigint' || v < 0n || v > 1_000_000n) return null;
      params[name] = Number(v);
    }
    return { table, params, delegations: common.isActivatedEIP(7702) };
  }
}

/** A TernEVM built as createEVM builds an EVM. */
export function createTernEVM(opts: EVMOpts): TernEVM {
  return new TernEVM({ ...opts, bn254: opts.bn254 ?? new NobleBN254() });
}

function addressWord(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}
