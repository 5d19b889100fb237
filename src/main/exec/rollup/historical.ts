// Historical RPC forwarding (--rollup.historicalrpc, --rollup.historicalrpctimeout): requests about blocks older
// than the chain tern holds — below the Bedrock block of a migrated chain (op-geth's IsOptimismPreBedrock) or below
// the first block in the database — go to the legacy node. As op-geth: state and execution methods answer
// `historical backend error: …` (-32000) when the legacy node fails, and -32801 when no historical RPC is set;
// block, transaction and receipt lookups (which op-geth serves from its migrated database, tern from the legacy
// node) fall back to the local answer when no historical RPC is set.

import { type BlockNumberOrHash, decodeBlockNumberOrHash } from '../../common/rpc/params.js';
import type { CallContext, RpcHandler } from '../../common/rpc/registry.js';
import { type ChainConfig, isOptimism } from '../../primitives/chainConfig.js';
import { RpcError, serverError } from '../../protocol/jsonrpc/errors.js';

/** op-geth's rpc.ErrNoHistoricalFallback. */
export const NO_HISTORICAL_FALLBACK_CODE = -32801;
export const NO_HISTORICAL_FALLBACK_MESSAGE =
  'no historical RPC is available for this historical (pre-bedrock) execution request';

export interface HistoricalRpc {
  call(method: string, params: readonly unknown[], signal: AbortSignal): Promise<unknown>;
}

/** Where local history starts. */
export interface HistoryBoundary {
  /** Blocks numbered below this are not executed locally. */
  readonly firstLocal: bigint;
  /** The number of a stored block, by 0x hash. */
  numberOf(hash: string): bigint | undefined;
}

/** The first block tern holds: the genesis block's number, or the Bedrock block of a migrated OP chain if higher. */
export function firstLocalBlock(config: ChainConfig, genesisNumber: bigint): bigint {
  const bedrock = isOptimism(config) ? config.blocks.bedrockBlock : undefined;
  return bedrock !== undefined && bedrock > genesisNumber ? bedrock : genesisNumber;
}

/** True when the selector names a block before local history (an unknown hash counts when such history exists). */
export function isHistorical(b: HistoryBoundary, sel: BlockNumberOrHash): boolean {
  if (b.firstLocal === 0n) return false;
  if (sel.blockHash !== undefined) {
    const n = b.numberOf(sel.blockHash.toLowerCase());
    return n === undefined || n < b.firstLocal;
  }
  const n = sel.blockNumber;
  if (n === 'earliest') return true;
  return typeof n === 'bigint' && n < b.firstLocal;
}

/** Methods that read state or execute at a block, with the position of their block argument. */
const STATE_METHODS: Readonly<Record<string, number>> = {
  getBalance: 1,
  getCode: 1,
  getStorageAt: 2,
  getTransactionCount: 1,
  getProof: 2,
  call: 1,
  estimateGas: 1,
  createAccessList: 1,
};

/** Block lookups by number or hash (argument 0). */
const BLOCK_METHODS = [
  'getBlockByNumber',
  'getBlockByHash',
  'getBlockTransactionCountByNumber',
  'getBlockTransactionCountByHash',
  'getTransactionByBlockNumberAndIndex',
  'getTransactionByBlockHashAndIndex',
  'getRawTransactionByBlockNumberAndIndex',
  'getRawTransactionByBlockHashAndIndex',
  'getBlockReceipts',
  'getHeaderByNumber',
  'getHeaderByHash',
] as const;

/** Lookups by transaction hash: asked of the legacy node when the local answer is null. */
const TX_METHODS = ['getTransactionByHash', 'getRawTransactionByHash', 'getTransactionReceipt'] as const;

function selectorAt(params: unknown[], index: number): BlockNumberOrHash | undefined {
  const v = params[index];
  if (v === undefined || v === null) return undefined;
  try {
    return decodeBlockNumberOrHash(v);
  } catch {
    return undefined; // the local handler reports the bad argument
  }
}

async function forward(rpc: HistoricalRpc, method: string, params: unknown[], ctx: CallContext): Promise<unknown> {
  try {
    return await rpc.call(method, params, ctx.signal);
  } catch (err) {
    // op-geth wraps the legacy node's error, which loses its code (-32000).
    throw serverError(`historical backend error: ${(err as Error).message}`);
  }
}

/** The eth methods of `base` with pre-history requests forwarded (or refused) as op-geth does. */
export function historicalEthMethods(
  base: Readonly<Record<string, RpcHandler>>,
  boundary: HistoryBoundary,
  rpc: HistoricalRpc | undefined,
): Record<string, RpcHandler> {
  const out: Record<string, RpcHandler> = {};
  for (const [name, index] of Object.entries(STATE_METHODS)) {
    const local = base[name];
    if (!local) continue;
    out[name] = (params, ctx) => {
      const sel = selectorAt(params, index);
      if (sel === undefined || !isHistorical(boundary, sel)) return local(params, ctx);
      if (!rpc) throw new RpcError(NO_HISTORICAL_FALLBACK_CODE, NO_HISTORICAL_FALLBACK_MESSAGE);
      return forward(rpc, `eth_${name}`, params, ctx);
    };
  }
  for (const name of BLOCK_METHODS) {
    const local = base[name];
    if (!local) continue;
    out[name] = (params, ctx) => {
      const sel = selectorAt(params, 0);
      if (!rpc || sel === undefined || !isHistorical(boundary, sel)) return local(params, ctx);
      return forward(rpc, `eth_${name}`, params, ctx);
    };
  }
  for (const name of TX_METHODS) {
    const local = base[name];
    if (!local) continue;
    out[name] = async (params, ctx) => {
      const mine = await local(params, ctx);
      if (mine !== null && mine !== undefined) return mine;
      if (!rpc || boundary.firstLocal === 0n) return mine;
      return forward(rpc, `eth_${name}`, params, ctx);
    };
  }
  return out;
}
