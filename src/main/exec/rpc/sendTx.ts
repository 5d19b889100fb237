// Submitting transactions and the eth methods that see the pool (geth's internal/ethapi SubmitTransaction and the
// pool fall-backs): eth_sendRawTransaction with --rpc.txfeecap and --rpc.allow-unprotected-txs checked before the
// pool, eth_getTransactionByHash / eth_getRawTransactionByHash falling back to pooled transactions,
// eth_getTransactionCount('pending') counting pending ones, eth_pendingTransactions. The handlers wrap the eth
// namespace's own so the chain is asked first, as geth does.

import {
  checkArity,
  decodeAddress,
  decodeBlockNumberOrHash,
  decodeData,
  decodeHash,
  param,
} from '../../common/rpc/params.js';
import type { CallContext, RpcHandler } from '../../common/rpc/registry.js';
import { fromHex } from '../../primitives/bytes.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { txToJson } from '../../primitives/tx/json.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { isTxIndexingError } from '../history/txIndexStatus.js';
import type { TernTxPool } from '../txpool/pool.js';
import { splitBlobTx } from '../txpool/sidecar.js';
import { feeCapOf } from '../txpool/validate.js';
import { isPending } from './blockTag.js';
import { hex, qty } from './format.js';

export interface SendTxOptions {
  /** --rpc.txfeecap in ether; 0 for no cap. */
  txFeeCap: number;
  /** --rpc.allow-unprotected-txs */
  allowUnprotected: boolean;
  /** The node's own accounts (eth_pendingTransactions lists their pooled transactions). */
  accounts?: () => readonly Uint8Array[];
}

export const sendTxDefaults: SendTxOptions = { txFeeCap: 1, allowUnprotected: false };

const WEI_PER_ETHER = 10n ** 18n;

/** geth's UnmarshalBinary, for the submission checks (the pool decodes again on its own). */
export function decodeSubmitted(raw: Uint8Array): DecodedTx {
  if (raw.length === 0) throw serverError('typed transaction too short');
  try {
    return decodeTransaction(raw[0] === 3 ? splitBlobTx(raw).consensus : raw);
  } catch (err) {
    throw serverError((err as Error).message);
  }
}

/** geth's checkTxFee: gasPrice (fee cap) · gas, in ether, must not exceed the cap. */
export function checkTxFee(gasPrice: bigint, gas: bigint, capEther: number): void {
  if (capEther === 0) return;
  const wei = gasPrice * gas;
  // Float like geth's big.Float → float64; whole ether and the remainder keep precision for large fees.
  const fee = Number(wei / WEI_PER_ETHER) + Number(wei % WEI_PER_ETHER) / 1e18;
  if (fee > capEther) {
    throw serverError(`tx fee (${fee.toFixed(2)} ether) exceeds the configured cap (${capEther.toFixed(2)} ether)`);
  }
}

/** A legacy transaction signed without a chain id (v = 27/28) is not replay-protected. */
export const isProtected = (tx: DecodedTx): boolean => tx.type !== 0 || (tx.v !== 27n && tx.v !== 28n);

export function poolEthMethods(
  base: Readonly<Record<string, RpcHandler>>,
  pool: TernTxPool,
  opts: SendTxOptions,
): Record<string, RpcHandler> {
  const call = (name: string, params: unknown[], ctx: CallContext) => {
    const h = base[name];
    if (!h) throw new Error(`eth_${name} is not registered`);
    return h(params, ctx);
  };
  const pendingJson = (hash: Uint8Array) => {
    const t = pool.get(hash);
    return t ? txToJson(t.tx, t.sender) : null;
  };
  return {
    sendRawTransaction: async (params) => {
      checkArity(params, 1);
      const raw = param(params, 0, decodeData);
      const tx = decodeSubmitted(raw);
      checkTxFee(feeCapOf(tx), tx.gasLimit, opts.txFeeCap);
      if (!opts.allowUnprotected && !isProtected(tx)) {
        throw serverError('only replay-protected (EIP-155) transactions allowed over RPC');
      }
      const r = await pool.add(raw, { local: true });
      if (!r.ok) throw serverError(r.message);
      return hex(r.hash);
    },
    getTransactionByHash: async (params, ctx) => {
      // geth looks in the pool before answering "transaction indexing is in progress".
      const mined = await Promise.resolve()
        .then(() => call('getTransactionByHash', params, ctx))
        .catch((err: unknown) => {
          if (isTxIndexingError(err) && pool.get(fromHex(param(params, 0, decodeHash)))) return null;
          throw err;
        });
      if (mined !== null && mined !== undefined) return mined;
      return pendingJson(fromHex(param(params, 0, decodeHash)));
    },
    getRawTransactionByHash: async (params, ctx) => {
      const mined = await Promise.resolve()
        .then(() => call('getRawTransactionByHash', params, ctx))
        .catch((err: unknown) => {
          if (isTxIndexingError(err) && pool.get(fromHex(param(params, 0, decodeHash)))) return null;
          throw err;
        });
      if (mined !== null && mined !== undefined) return mined;
      const t = pool.get(fromHex(param(params, 0, decodeHash)));
      return t ? hex(pool.networkForm(t)) : null;
    },
    getTransactionCount: async (params, ctx) => {
      checkArity(params, 2);
      const sel = param(params, 1, decodeBlockNumberOrHash);
      if (!isPending(sel)) return call('getTransactionCount', params, ctx);
      const address = param(params, 0, decodeAddress);
      const latest = (await call('getTransactionCount', [address, 'latest'], ctx)) as string;
      return qty(pool.pendingNonce(fromHex(address), BigInt(latest)));
    },
    pendingTransactions: (params) => {
      checkArity(params, 0);
      const mine = new Set<string>((opts.accounts?.() ?? []).map((a) => hex(a)));
      const out: unknown[] = [];
      for (const [sender, txs] of pool.content().pending) {
        if (mine.has(sender)) for (const t of txs) out.push(txToJson(t.tx, t.sender));
      }
      return out;
    },
  };
}
