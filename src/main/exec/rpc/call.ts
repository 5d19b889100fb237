// eth_call, eth_estimateGas and eth_createAccessList as JSON-RPC sees them: the block the request names, read through
// one chain view, handed to the call executor (../evm/call.ts) as the header, the state after it and the chain's
// block hashes; eth_createAccessList's fee defaults from the gas price oracle. The answers keep geth's words.
import type { Logger } from '../../common/logger/index.js';
import type { BlockNumberOrHash } from '../../common/rpc/params.js';
import { blobBaseFee } from '../../primitives/block/fees.js';
import { blobParamsAt, type ChainConfig } from '../../primitives/chainConfig.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { ChainView, HeaderRef } from '../chain/chainView.js';
import { stateAt } from '../chain/stateAt.js';
import { type AccessListResult, CallExecutor, type CallOutcome, type CallScope } from '../evm/call.js';
import type { CallArgs } from '../evm/callMessage.js';
import { isPending, stateBlockRef } from './blockTag.js';
import { hex } from './format.js';
import type { GasPriceOracle } from './gasPrice.js';

/** What the call runner reads through. */
export interface CallBackend {
  readonly config: ChainConfig;
  readonly gasCap: bigint;
  readonly evmTimeoutMs: number;
  readonly oracle: GasPriceOracle;
  readonly logger: Logger;
  read<T>(fn: (view: ChainView) => T | Promise<T>, pending?: boolean): Promise<T>;
}

/** The scope of a call on block `ref` of `view`: its header, the state after it, the view's canonical hashes. */
function callScope(view: ChainView, ref: HeaderRef): CallScope {
  return { header: ref.header, reader: stateAt(view, ref), getBlockHash: (n) => view.canonicalHash(n) };
}

export class CallRunner {
  readonly #executor: CallExecutor;

  constructor(private readonly backend: CallBackend) {
    this.#executor = new CallExecutor(backend.config, backend);
  }

  /** `fn` on the scope of the selected block, after the calls before it are done. */
  #onBlock<T>(sel: BlockNumberOrHash, fn: (scope: CallScope, view: ChainView) => Promise<T>): Promise<T> {
    return this.#executor.exclusive(() =>
      this.backend.read((view) => fn(callScope(view, stateBlockRef(view, sel)), view), isPending(sel)),
    );
  }

  /** geth's DoCall: the message's outcome; used by GraphQL's `call`, which reports failures as data. */
  doCall(args: CallArgs, sel: BlockNumberOrHash): Promise<CallOutcome> {
    return this.#onBlock(sel, (scope) => this.#executor.doCall(scope, args));
  }

  /** eth_call: the return data, or code 3 with the revert data, or the EVM's error. */
  call(args: CallArgs, sel: BlockNumberOrHash): Promise<string> {
    return this.#onBlock(sel, async (scope) => hex(await this.#executor.call(scope, args)));
  }

  /** eth_estimateGas: geth's binary search for the lowest gas limit that does not fail. */
  estimateGas(args: CallArgs, sel: BlockNumberOrHash): Promise<bigint> {
    return this.#onBlock(sel, (scope) => this.#executor.estimateGas(scope, args));
  }

  /** eth_createAccessList: re-runs the message with the list it touched until the list stops changing. */
  createAccessList(args: CallArgs, sel: BlockNumberOrHash): Promise<AccessListResult> {
    return this.#onBlock(sel, (scope, view) =>
      this.#executor.createAccessList(scope, this.#feeDefaults(view, args, scope.header)),
    );
  }

  /** geth's setFeeDefaults for eth_createAccessList: fill the fee fields a transaction would get. */
  #feeDefaults(view: ChainView, args: CallArgs, head: HeaderRef['header']): CallArgs {
    const out = { ...args };
    if (out.maxFeePerBlobGas !== undefined && out.maxFeePerBlobGas === 0n) {
      throw serverError('maxFeePerBlobGas, if specified, must be non-zero');
    }
    if (
      out.blobVersionedHashes !== undefined &&
      out.maxFeePerBlobGas === undefined &&
      head.excessBlobGas !== undefined
    ) {
      const params = blobParamsAt(this.backend.config, head.timestamp);
      const fee = params ? blobBaseFee(head.excessBlobGas, params) : 1n;
      out.maxFeePerBlobGas = fee * 2n;
    }
    if (out.gasPrice !== undefined && (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined)) {
      throw serverError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    }
    if (out.gasPrice === undefined && out.maxFeePerGas !== undefined && out.maxPriorityFeePerGas !== undefined) {
      if (out.maxFeePerGas === 0n) throw serverError('maxFeePerGas must be non-zero');
      if (out.maxFeePerGas < out.maxPriorityFeePerGas) {
        throw serverError(
          `maxFeePerGas (0x${out.maxFeePerGas.toString(16)}) < maxPriorityFeePerGas (0x${out.maxPriorityFeePerGas.toString(16)})`,
        );
      }
      return out;
    }
    const london = head.baseFeePerGas !== undefined;
    if (out.gasPrice !== undefined) {
      if (out.gasPrice === 0n && london) throw serverError('gasPrice must be non-zero after london fork');
      return out;
    }
    if (london) {
      out.maxPriorityFeePerGas ??= this.backend.oracle.suggestTipCap(view);
      out.maxFeePerGas ??= out.maxPriorityFeePerGas + (head.baseFeePerGas ?? 0n) * 2n;
      if (out.maxFeePerGas < out.maxPriorityFeePerGas) {
        throw serverError(
          `maxFeePerGas (0x${out.maxFeePerGas.toString(16)}) < maxPriorityFeePerGas (0x${out.maxPriorityFeePerGas.toString(16)})`,
        );
      }
    } else {
      if (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined) {
        throw serverError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
      }
      out.gasPrice = this.backend.oracle.suggestTipCap(view);
    }
    return out;
  }
}
