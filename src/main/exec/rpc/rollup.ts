import { checkArity, decodeData, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { isOptimism } from '../../primitives/chainConfig.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';
import { RpcError, RpcTransportError, serverError } from '../../protocol/jsonrpc/errors.js';
import { stateAt } from '../chain/stateAt.js';
import { TX_TYPE_BLOB } from '../evm/interface.js';
import {
  CONDITIONAL_COST_EXCEEDED_CODE,
  CONDITIONAL_MAX_COST,
  CONDITIONAL_REJECTED_CODE,
  checkHeaderConditional,
  checkStateConditional,
  conditionalCost,
  conditionalToJson,
  decodeConditional,
  validateConditional,
} from '../rollup/conditional.js';
import type { ForwardRpc, RollupEthParts } from '../rollup/ethParts.js';
import { historicalEthMethods } from '../rollup/historical.js';
import { TX_FILTERED_OUT } from '../rollup/interop.js';
import { feeCapOf } from '../txpool/validate.js';
import { headerByHash } from './blockTag.js';
import { checkTxFee, decodeSubmitted, isProtected, type SendTxOptions } from './sendTx.js';

/** An answer from the endpoint is passed on as is; a failure below JSON-RPC is a plain error. */
async function forward(rpc: ForwardRpc, method: string, params: readonly unknown[], signal: AbortSignal) {
  try {
    return await rpc.call(method, params, signal);
  } catch (err) {
    if (err instanceof RpcError) throw err;
    if (err instanceof RpcTransportError) throw serverError(err.message);
    throw err;
  }
}

export function rollupEthMethods(
  base: Readonly<Record<string, RpcHandler>>,
  parts: RollupEthParts,
  sendTx: SendTxOptions,
): Record<string, RpcHandler> {
  const { backend, pool, logger } = parts;
  const optimism = isOptimism(backend.config);

  /** ethapi.SubmitTransaction's checks, then op-geth's SendTx refusal of blob transactions on OP chains. */
  const precheck = (tx: DecodedTx) => {
    checkTxFee(feeCapOf(tx), tx.gasLimit, sendTx.txFeeCap);
    if (!sendTx.allowUnprotected && !isProtected(tx)) {
      throw serverError('only replay-protected (EIP-155) transactions allowed over RPC');
    }
    if (optimism && tx.type === TX_TYPE_BLOB) throw serverError('transaction type not supported');
  };

  /** Adds to the local pool behind the interop filter; returns the pool's error text or undefined. */
  const addLocal = async (raw: Uint8Array, tx: DecodedTx): Promise<string | undefined> => {
    if (parts.interop && !(await parts.interop.admit(tx))) return TX_FILTERED_OUT;
    const r = await pool.add(raw, { local: true });
    return r.ok ? undefined : r.message;
  };

  /** EthAPIBackend.SendTx. */
  const send = async (raw: Uint8Array, tx: DecodedTx, signal: AbortSignal): Promise<void> => {
    if (parts.sequencer) {
      await forward(parts.sequencer, 'eth_sendRawTransaction', [hex(raw)], signal);
      if (parts.disableTxPoolAdmission) return;
      const failed = await addLocal(raw, tx);
      if (failed !== undefined) {
        logger.warn('successfully sent tx to sequencer, but failed to persist in local tx pool', {
          err: failed,
          tx: hex(tx.hash),
        });
      }
      return;
    }
    if (parts.disableTxPoolAdmission) return;
    const failed = await addLocal(raw, tx);
    if (failed !== undefined) throw serverError(failed);
  };

  const out: Record<string, RpcHandler> = {};
  if (parts.sequencer || parts.interop) {
    out.sendRawTransaction = async (params, ctx) => {
      checkArity(params, 1);
      const raw = param(params, 0, decodeData);
      const tx = decodeSubmitted(raw);
      precheck(tx);
      await send(raw, tx, ctx.signal);
      return hex(tx.hash);
    };
  }

  const cond = parts.conditional;
  if (cond) {
    out.sendRawTransactionConditional = async (params, ctx) => {
      checkArity(params, 2);
      const raw = param(params, 0, decodeData);
      const c = param(params, 1, decodeConditional);
      const cost = conditionalCost(c);
      if (cost > CONDITIONAL_MAX_COST) {
        throw new RpcError(
          CONDITIONAL_COST_EXCEEDED_CODE,
          `conditional cost, ${cost}, exceeded max: ${CONDITIONAL_MAX_COST}`,
        );
      }
      const invalid = validateConditional(c);
      if (invalid !== undefined)
        throw new RpcError(CONDITIONAL_REJECTED_CODE, `failed conditional validation: ${invalid}`);
      await backend.read((view) => {
        const head = view.head();
        const h = checkHeaderConditional(c, head.header.number, head.header.timestamp);
        if (h !== undefined) throw new RpcError(CONDITIONAL_REJECTED_CODE, `failed header check: ${h}`);
        const s = checkStateConditional(c, stateAt(view, head));
        if (s !== undefined) throw new RpcError(CONDITIONAL_REJECTED_CODE, `failed state check: ${s}`);
        // Checked against the parent too, so the endpoint offers no MEV edge over eth_sendRawTransaction.
        const parent = headerByHash(view, head.header.parentHash);
        if (!parent) throw serverError('header for hash not found');
        const p = checkStateConditional(c, stateAt(view, parent));
        if (p !== undefined) {
          throw new RpcError(
            CONDITIONAL_REJECTED_CODE,
            `failed parent block ${hex(head.header.parentHash)} state check: ${p}`,
          );
        }
      });
      if (!(await cond.limiter.wait(cost, ctx.signal))) {
        throw new RpcError(CONDITIONAL_COST_EXCEEDED_CODE, `cost ${cost} rate limited`);
      }
      const tx = decodeSubmitted(raw);
      if (parts.sequencer) {
        checkTxFee(feeCapOf(tx), tx.gasLimit, sendTx.txFeeCap);
        if (!sendTx.allowUnprotected && !isProtected(tx)) {
          throw serverError('only replay-protected (EIP-155) transactions allowed over RPC');
        }
        return forward(
          parts.sequencer,
          'eth_sendRawTransactionConditional',
          [hex(raw), conditionalToJson(c)],
          ctx.signal,
        );
      }
      precheck(tx);
      cond.registry.set(tx.hash, c);
      try {
        await send(raw, tx, ctx.signal);
      } catch (err) {
        cond.registry.reject(tx.hash);
        throw err;
      }
      return hex(tx.hash);
    };
  }

  if (parts.historical) Object.assign(out, historicalEthMethods(base, parts.historical.boundary, parts.historical.rpc));
  return out;
}
