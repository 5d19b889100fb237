// The message of eth_call, eth_estimateGas, eth_createAccessList and debug_traceCall: the decoded transaction
// arguments (geth's TransactionArgs), CallDefaults (gas from the cap, zero fees, the chain id check), ToMessage (the
// fee fields the state transition sees) and the transaction the executor runs for it. JSON decoding is
// ../rpc/callArgs.ts.
import { Address } from '@ethereumjs/util';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { AccessListItemBytes, AuthorizationBytes, TransactionLike } from './interface.js';

export interface CallArgs {
  from?: Uint8Array | undefined;
  to?: Uint8Array | undefined;
  gas?: bigint | undefined;
  gasPrice?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
  value?: bigint | undefined;
  nonce?: bigint | undefined;
  /** `input`, or `data` when there is no `input` (geth prefers input). */
  input?: Uint8Array | undefined;
  accessList?: AccessListItemBytes[] | undefined;
  chainId?: bigint | undefined;
  maxFeePerBlobGas?: bigint | undefined;
  blobVersionedHashes?: string[] | undefined;
  authorizationList?: AuthorizationBytes[] | undefined;
}

const MAX_UINT64 = (1n << 64n) - 1n;

/** geth's CallDefaults: a copy of `args` with the gas, nonce, value and fee fields filled for a call. */
export function callDefaults(args: CallArgs, gasCap: bigint, baseFee: bigint | undefined, chainId: bigint): CallArgs {
  const out = { ...args };
  if (out.gasPrice !== undefined && (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined)) {
    throw serverError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  if (out.chainId === undefined) out.chainId = chainId;
  else if (out.chainId !== chainId) {
    throw serverError(`chainId does not match node's (have=${out.chainId}, want=${chainId})`);
  }
  if (out.gas === undefined) out.gas = gasCap === 0n ? MAX_UINT64 / 2n : gasCap;
  else if (gasCap > 0n && gasCap < out.gas) out.gas = gasCap;
  out.nonce ??= 0n;
  out.value ??= 0n;
  if (baseFee === undefined) {
    out.gasPrice ??= 0n;
  } else {
    out.maxFeePerGas ??= 0n;
    out.maxPriorityFeePerGas ??= 0n;
  }
  if (out.maxFeePerBlobGas === undefined && out.blobVersionedHashes !== undefined) out.maxFeePerBlobGas = 0n;
  return out;
}

/** The message a call executes (geth's core.Message). */
export interface CallMessage {
  from: Uint8Array;
  to: Uint8Array | undefined;
  value: bigint;
  gasLimit: bigint;
  /** The price per gas the EVM sees; zero makes the block's base fee zero for the call (geth's NoBaseFee). */
  gasPrice: bigint;
  feeCap: bigint;
  tipCap: bigint;
  /** Fees given as the legacy gasPrice. */
  legacyFees: boolean;
  data: Uint8Array;
  accessList: AccessListItemBytes[] | undefined;
  blobFeeCap: bigint | undefined;
  blobHashes: string[] | undefined;
  authorizations: AuthorizationBytes[] | undefined;
}

/** The transaction the executor runs for a message (eth_call, estimateGas, traceCall): its type from the fields set. */
export function messageTransaction(msg: CallMessage, nonce: bigint): TransactionLike {
  const type =
    msg.authorizations !== undefined
      ? 4
      : msg.blobHashes !== undefined
        ? 3
        : !msg.legacyFees
          ? 2
          : msg.accessList !== undefined
            ? 1
            : 0;
  return {
    type,
    nonce,
    gasLimit: msg.gasLimit,
    to: msg.to === undefined ? undefined : new Address(msg.to),
    value: msg.value,
    data: msg.data,
    ...(type >= 2 ? { maxFeePerGas: msg.feeCap, maxPriorityFeePerGas: msg.tipCap } : { gasPrice: msg.gasPrice }),
    ...(type >= 1 ? { accessList: msg.accessList ?? [] } : {}),
    ...(type === 3 ? { blobVersionedHashes: msg.blobHashes ?? [], maxFeePerBlobGas: msg.blobFeeCap ?? 0n } : {}),
    ...(type === 4 ? { authorizationList: msg.authorizations ?? [] } : {}),
  };
}

/** geth's ToMessage, for arguments CallDefaults filled. */
export function toMessage(args: CallArgs, baseFee: bigint | undefined): CallMessage {
  let gasPrice: bigint;
  let feeCap: bigint;
  let tipCap: bigint;
  let legacyFees = false;
  if (baseFee === undefined || args.gasPrice !== undefined) {
    gasPrice = args.gasPrice ?? 0n;
    feeCap = gasPrice;
    tipCap = gasPrice;
    legacyFees = true;
  } else {
    feeCap = args.maxFeePerGas ?? 0n;
    tipCap = args.maxPriorityFeePerGas ?? 0n;
    gasPrice = 0n;
    if (feeCap > 0n || tipCap > 0n) {
      gasPrice = tipCap + baseFee;
      if (gasPrice > feeCap) gasPrice = feeCap;
    }
  }
  return {
    from: args.from ?? new Uint8Array(20),
    to: args.to,
    value: args.value ?? 0n,
    gasLimit: args.gas ?? 0n,
    gasPrice,
    feeCap,
    tipCap,
    legacyFees,
    data: args.input ?? new Uint8Array(0),
    accessList: args.accessList,
    blobFeeCap: args.maxFeePerBlobGas,
    blobHashes: args.blobVersionedHashes,
    authorizations: args.authorizationList,
  };
}
