// The eth methods of the node's own accounts (geth's internal/ethapi with its keystore backend): eth_accounts,
// eth_sign, eth_signTransaction and eth_sendTransaction. Transaction defaults follow geth's SetDefaults: nonce from
// the pending state, gas from eth_estimateGas, fees from the price oracle (tip + 2 × the head's base fee once London
// is on, the gas price before), the node's chain id. Signed transactions go through eth_sendRawTransaction, so the
// fee cap and replay-protection checks and the pool's own checks apply to them as to any other.
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx, type TypedTxData } from '@ethereumjs/tx';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { checkArity, decodeAddress, decodeData, decodeObject, param } from '../../common/rpc/params.js';
import type { CallContext, RpcHandler } from '../../common/rpc/registry.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { txToJson } from '../../primitives/tx/json.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { AccountBackend, FilledTx } from '../accounts/backend.js';
import { AccountManager, type AccountsOptions } from '../accounts/manager.js';
import type { CallArgs } from '../evm/callMessage.js';
import { decodeCallArgs } from './callArgs.js';
import { checkTxFee } from './sendTx.js';

const qty = (n: bigint) => `0x${n.toString(16)}`;

/** --keystore (default <datadir>/keystore), --lightkdf and --password, with the password lines' accounts unlocked. */
export function openAccountManager(opts: AccountsOptions, logger: Logger): AccountManager {
  const manager = new AccountManager(opts, { logger: logger.child('accounts') });
  manager.unlockWithPasswords();
  return manager;
}

export interface AccountsRpcOptions {
  chainId: bigint;
  /** --rpc.txfeecap in ether (eth_signTransaction checks it; eth_sendTransaction through eth_sendRawTransaction). */
  txFeeCap: number;
}

/** geth's transaction type choice (TransactionArgs.ToTransaction) for filled arguments. */
export function txTypeOf(a: CallArgs): FilledTx['type'] {
  if (a.blobVersionedHashes !== undefined) return 3;
  if (a.authorizationList !== undefined) return 4;
  if (a.maxFeePerGas !== undefined) return 2;
  if (a.accessList !== undefined) return 1;
  return 0;
}

/** Signs filled arguments with a private key; returns the consensus encoding. */
export function signFilled(filled: FilledTx, key: Uint8Array): Uint8Array {
  const a = filled.args;
  const common = createCustomCommon({ chainId: Number(a.chainId) }, Mainnet, { hardfork: Hardfork.Prague });
  const data: Record<string, unknown> = {
    type: filled.type,
    nonce: a.nonce,
    gasLimit: a.gas,
    to: a.to,
    value: a.value,
    data: a.input ?? new Uint8Array(0),
    chainId: a.chainId,
  };
  if (filled.type === 0 || filled.type === 1) data.gasPrice = a.gasPrice;
  else {
    data.maxFeePerGas = a.maxFeePerGas;
    data.maxPriorityFeePerGas = a.maxPriorityFeePerGas;
  }
  if (filled.type >= 1) data.accessList = a.accessList ?? [];
  if (filled.type === 3) {
    data.maxFeePerBlobGas = a.maxFeePerBlobGas;
    data.blobVersionedHashes = a.blobVersionedHashes;
  }
  if (filled.type === 4) data.authorizationList = a.authorizationList;
  try {
    const tx = createTx(data as TypedTxData, { common });
    return tx.sign(key).serialize();
  } catch (err) {
    throw serverError((err as Error).message);
  }
}

type Call = (name: string, params: unknown[], ctx: CallContext) => Promise<unknown>;

/** The request's transaction object (argument 0) decoded; a bad field is -32602 `invalid argument 0: ...`. */
const decodeTxArgs = (raw: Record<string, unknown>): CallArgs => param([raw], 0, decodeCallArgs);

/**
 * geth's SetDefaults: fills nonce, gas, fees and chain id of `raw` (the request's transaction object). `requireAll`
 * is eth_signTransaction's rule: gas, a fee and the nonce must be given.
 */
export async function fillTransaction(
  raw: Record<string, unknown>,
  call: Call,
  ctx: CallContext,
  opts: AccountsRpcOptions,
  requireAll = false,
): Promise<FilledTx> {
  const args = decodeTxArgs(raw);
  if (args.from === undefined) throw serverError('from address not specified');
  if (raw.data !== undefined && raw.input !== undefined && raw.data !== raw.input)
    throw serverError('both "data" and "input" are set and not equal');
  if (requireAll) {
    if (args.gas === undefined) throw serverError('gas not specified');
    if (args.gasPrice === undefined && (args.maxPriorityFeePerGas === undefined || args.maxFeePerGas === undefined))
      throw serverError('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas');
    if (args.nonce === undefined) throw serverError('nonce not specified');
  }
  if (args.to === undefined && (args.input === undefined || args.input.length === 0))
    throw serverError('contract creation without any data provided');
  if (args.blobVersionedHashes !== undefined && args.to === undefined)
    throw serverError('missing "to" in blob transaction');
  if (args.authorizationList !== undefined && args.to === undefined)
    throw serverError('missing "to" in set-code transaction');
  if (args.chainId !== undefined && args.chainId !== opts.chainId)
    throw serverError(`chainId does not match node's (have=${args.chainId}, want=${opts.chainId})`);
  const from = hex(args.from);

  // Fees.
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined))
    throw serverError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  const head = (await call('getBlockByNumber', ['latest', false], ctx)) as { baseFeePerGas?: string } | null;
  const baseFee = head?.baseFeePerGas === undefined ? undefined : BigInt(head.baseFeePerGas);
  if (args.gasPrice === undefined) {
    if (baseFee !== undefined) {
      args.maxPriorityFeePerGas ??= BigInt((await call('maxPriorityFeePerGas', [], ctx)) as string);
      args.maxFeePerGas ??= args.maxPriorityFeePerGas + 2n * baseFee;
      if (args.maxFeePerGas < args.maxPriorityFeePerGas)
        throw serverError(`maxFeePerGas (${args.maxFeePerGas}) < maxPriorityFeePerGas (${args.maxPriorityFeePerGas})`);
    } else {
      if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)
        throw serverError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
      args.gasPrice = BigInt((await call('gasPrice', [], ctx)) as string);
    }
  }
  if (args.blobVersionedHashes !== undefined && args.maxFeePerBlobGas === undefined)
    args.maxFeePerBlobGas = 2n * BigInt((await call('blobBaseFee', [], ctx)) as string);

  const nonce = args.nonce ?? BigInt((await call('getTransactionCount', [from, 'pending'], ctx)) as string);
  let gas = args.gas;
  if (gas === undefined) {
    const estimate: Record<string, unknown> = { ...raw, nonce: qty(nonce) };
    delete estimate.gas;
    for (const k of ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'maxFeePerBlobGas'] as const) {
      const v = args[k];
      if (v !== undefined) estimate[k] = qty(v);
    }
    gas = BigInt((await call('estimateGas', [estimate, 'latest'], ctx)) as string);
  }
  const filled = { ...args, from: args.from, nonce, gas, chainId: opts.chainId, value: args.value ?? 0n };
  return { type: txTypeOf(filled), args: filled };
}

/** The keystore's accounts as an account backend. */
export function localAccounts(manager: AccountManager): AccountBackend {
  return {
    accounts: async () => manager.accounts(),
    knownAccounts: () => manager.accounts(),
    checkCanSign: async (address) => void manager.privateKey(address),
    signText: async (address, message) => manager.signMessage(address, message),
    signTransaction: async (filled) => signFilled(filled, manager.privateKey(hex(filled.args.from))),
  };
}

/** Runs a backend call, turning its refusals (unknown or locked account, signer errors) into JSON-RPC errors. */
async function asRpc<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TernError) throw serverError(err.message);
    throw err;
  }
}

/** The account methods over `base` (the eth namespace with the pool's methods, for sendRawTransaction). */
export function accountsEthMethods(
  base: Readonly<Record<string, RpcHandler>>,
  accounts: AccountBackend,
  opts: AccountsRpcOptions,
): Record<string, RpcHandler> {
  const call: Call = async (name, params, ctx) => {
    const h = base[name];
    if (!h) throw new Error(`eth_${name} is not registered`);
    return h(params, ctx);
  };
  return {
    accounts: (params) => {
      checkArity(params, 0);
      return accounts.accounts();
    },
    sign: async (params) => {
      checkArity(params, 2);
      const address = param(params, 0, decodeAddress);
      const data = param(params, 1, decodeData);
      return hex(await asRpc(() => accounts.signText(address, data)));
    },
    signTransaction: async (params, ctx) => {
      checkArity(params, 1);
      const raw = param(params, 0, decodeObject);
      const filled = await fillTransaction(raw, call, ctx, opts, true);
      await asRpc(() => accounts.checkCanSign(hex(filled.args.from)));
      const signed = await asRpc(() => accounts.signTransaction(filled));
      const tx = decodeTransaction(signed);
      checkTxFee(tx.maxFeePerGas ?? tx.gasPrice ?? 0n, tx.gasLimit, opts.txFeeCap);
      return { raw: hex(signed), tx: txToJson(tx, filled.args.from) };
    },
    sendTransaction: async (params, ctx) => {
      checkArity(params, 1);
      const raw = param(params, 0, decodeObject);
      const from = decodeTxArgs(raw).from;
      // A locked or unknown account fails before any work, as in geth (wallet lookup first).
      if (from !== undefined) await asRpc(() => accounts.checkCanSign(hex(from)));
      const filled = await fillTransaction(raw, call, ctx, opts);
      const signed = await asRpc(() => accounts.signTransaction(filled));
      return call('sendRawTransaction', [hex(signed)], ctx);
    },
  };
}
