// What the rollup flags change in tern-exec's eth namespace (sequencer forwarding, interop filtering, historical
// RPC, conditional transactions): built by ./services.ts, layered over the local handlers by ../rpc/rollup.ts.
import type { Logger } from '../../common/logger/index.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { ChainView } from '../chain/chainView.js';
import type { TernTxPool } from '../txpool/pool.js';
import type { ConditionalRegistry } from './conditionalPool.js';
import type { HistoricalRpc, HistoryBoundary } from './historical.js';
import type { InteropFilter } from './interop.js';
import type { RateLimiter } from './rateLimiter.js';

/** A JSON-RPC endpoint tern forwards to (the sequencer). */
export interface ForwardRpc {
  call(method: string, params: readonly unknown[], signal: AbortSignal): Promise<unknown>;
}

/** The chain reads the rollup handlers make (the RPC backend: ../rpc/backend.ts). */
export interface RollupBackend {
  readonly config: ChainConfig;
  read<T>(fn: (view: ChainView) => T | Promise<T>, pending?: boolean): Promise<T>;
}

export interface RollupEthParts {
  backend: RollupBackend;
  pool: TernTxPool;
  logger: Logger;
  sequencer?: ForwardRpc | undefined;
  /** Forwarded transactions stay out of the local pool. */
  disableTxPoolAdmission: boolean;
  interop?: InteropFilter | undefined;
  historical?: { boundary: HistoryBoundary; rpc: HistoricalRpc | undefined } | undefined;
  conditional?: { registry: ConditionalRegistry; limiter: RateLimiter } | undefined;
}
