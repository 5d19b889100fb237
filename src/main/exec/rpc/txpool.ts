// The txpool namespace (geth's internal/ethapi TxPoolAPI): content, contentFrom, inspect and status. Accounts are
// keyed by their EIP-55 form and transactions by decimal nonce, as geth's maps marshal them.
import { toChecksumAddress } from '@ethereumjs/util';
import { checkArity, decodeAddress, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { fromHex } from '../../primitives/bytes.js';
import { txToJson } from '../../primitives/tx/json.js';
import type { PoolTx, TernTxPool } from '../txpool/pool.js';
import { feeCapOf } from '../txpool/validate.js';
import { qty } from './format.js';

type ByNonce<T> = Record<string, T>;

function byNonce<T>(txs: readonly PoolTx[], f: (t: PoolTx) => T): ByNonce<T> {
  const out: ByNonce<T> = {};
  for (const t of txs) out[t.tx.nonce.toString()] = f(t);
  return out;
}

function byAccount<T>(m: Map<string, PoolTx[]>, f: (t: PoolTx) => T): Record<string, ByNonce<T>> {
  const out: Record<string, ByNonce<T>> = {};
  for (const [sender, txs] of m) out[toChecksumAddress(sender)] = byNonce(txs, f);
  return out;
}

const json = (t: PoolTx) => txToJson(t.tx, t.sender);

/** geth's inspect line: `to: value wei + gas gas × price wei`. */
export function inspectLine(t: PoolTx): string {
  const to = t.tx.to ? toChecksumAddress(t.tx.to.toString()) : 'contract creation';
  return `${to}: ${t.tx.value} wei + ${t.tx.gasLimit} gas × ${feeCapOf(t.tx)} wei`;
}

export function txpoolNamespace(pool: TernTxPool): Record<string, RpcHandler> {
  return {
    content: (params) => {
      checkArity(params, 0);
      const c = pool.content();
      return { pending: byAccount(c.pending, json), queued: byAccount(c.queued, json) };
    },
    contentFrom: (params) => {
      checkArity(params, 1);
      const address = fromHex(param(params, 0, decodeAddress));
      const c = pool.content(address);
      const pick = (m: Map<string, PoolTx[]>) => byNonce([...m.values()].flat(), json);
      return { pending: pick(c.pending), queued: pick(c.queued) };
    },
    inspect: (params) => {
      checkArity(params, 0);
      const c = pool.content();
      return { pending: byAccount(c.pending, inspectLine), queued: byAccount(c.queued, inspectLine) };
    },
    status: (params) => {
      checkArity(params, 0);
      const s = pool.status();
      return { pending: qty(s.pending), queued: qty(s.queued) };
    },
  };
}
