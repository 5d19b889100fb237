// Wires the rollup flags into a running tern-exec: the RPC clients (sequencer, historical node, supervisor), the
// parts of the eth namespace they change, and the pool view the block builder uses when conditionals are on.
import type { Logger } from '../../common/logger/index.js';
import { RpcClient } from '../../common/rpc/client.js';
import { isOptimism } from '../../primitives/chainConfig.js';
import type { ChainStore } from '../chain/chainStore.js';
import { ChainView } from '../chain/chainView.js';
import { stateAt } from '../chain/stateAt.js';
import type { TxPool } from '../txpool/interface.js';
import type { TernTxPool } from '../txpool/pool.js';
import { CONDITIONAL_MAX_COST, checkHeaderConditional, checkStateConditional } from './conditional.js';
import { ConditionalRegistry, conditionalPool } from './conditionalPool.js';
import type { RollupBackend, RollupEthParts } from './ethParts.js';
import { firstLocalBlock } from './historical.js';
import { type InteropChain, InteropFilter, supervisorClient } from './interop.js';
import type { RollupOptions } from './options.js';
import { RateLimiter } from './rateLimiter.js';

export interface RollupServices {
  /** What the eth namespace layers on (undefined: nothing to change). */
  readonly eth: RollupEthParts | undefined;
  readonly conditionals: ConditionalRegistry | undefined;
  /** The pool as the block builder sees it. */
  builderPool(pool: TxPool): TxPool;
  close(): Promise<void>;
}

/** The next block's time, inferred from the last two blocks as op-geth's interop filter does. */
export function nextBlockTime(store: ChainStore): bigint | string {
  const head = store.head();
  if (head.number === 0n) return 'infer block time: current head is at genesis: penultimate header is nil';
  const parent = store.headerByHash(head.header.parentHash);
  if (!parent) return 'infer block time: penultimate header is nil';
  return head.header.timestamp + (head.header.timestamp - parent.timestamp);
}

export function createRollupServices(
  opts: RollupOptions,
  deps: { backend: RollupBackend; pool: TernTxPool; store: ChainStore; logger: Logger },
): RollupServices {
  const { backend, pool, store, logger } = deps;
  const config = store.config();
  const clients: Array<{ close(): Promise<void> }> = [];
  const client = (url: string, timeoutMs: number) => {
    const c = new RpcClient({ url, timeoutMs }, { logger });
    clients.push(c);
    return {
      call: (method: string, params: readonly unknown[], signal: AbortSignal) => c.call(method, params, { signal }),
    };
  };

  if (opts.disableTxPoolGossip) logger.info('Transaction pool gossip disabled (tern-exec never gossips transactions)');
  const sequencer = opts.sequencerHttp === undefined ? undefined : client(opts.sequencerHttp, 10_000);
  if (sequencer)
    logger.info('Forwarding transactions to the sequencer', {
      url: opts.sequencerHttp,
      admission: !opts.disableTxPoolAdmission,
    });

  const genesis = store.genesisHash();
  const genesisNumber = (genesis && store.headerByHash(genesis)?.number) ?? 0n;
  const firstLocal = firstLocalBlock(config, genesisNumber);
  const historicalRpc =
    opts.historicalRpc === undefined ? undefined : client(opts.historicalRpc, opts.historicalRpcTimeoutMs);
  const historical =
    firstLocal > 0n || historicalRpc
      ? {
          boundary: {
            firstLocal,
            numberOf: (hash: string) => store.headerByHash(Buffer.from(hash.slice(2), 'hex'))?.number,
          },
          rpc: historicalRpc,
        }
      : undefined;

  let interop: InteropFilter | undefined;
  if (opts.interopRpc !== undefined && opts.interopMempoolFiltering) {
    const supervisor = supervisorClient(opts.interopRpc, { logger });
    clients.push(supervisor);
    const chain: InteropChain = {
      chainId: config.chainId,
      nextBlockTime: () => {
        if (!isOptimism(config)) return 'chain is not an Optimism chain';
        if (config.times.interopTime === undefined) return 'interop time not set in chain config';
        return nextBlockTime(store);
      },
    };
    interop = new InteropFilter(chain, supervisor, logger);
    logger.info('Interop mempool filtering enabled', { supervisor: opts.interopRpc });
  }

  const conditionals = opts.conditionalEnabled ? new ConditionalRegistry() : undefined;
  const conditional = conditionals
    ? {
        registry: conditionals,
        // op-geth bumps the burst to three maximal conditionals so they can queue.
        limiter: new RateLimiter({ ratePerSecond: opts.conditionalCostRateLimit, burst: 3 * CONDITIONAL_MAX_COST }),
      }
    : undefined;
  if (conditional) logger.info('Enabling eth_sendRawTransactionConditional endpoint support');

  const eth: RollupEthParts | undefined =
    sequencer || interop || historical || conditional
      ? {
          backend,
          pool,
          logger,
          sequencer,
          disableTxPoolAdmission: opts.disableTxPoolAdmission,
          interop,
          historical,
          conditional,
        }
      : undefined;

  return {
    eth,
    conditionals,
    builderPool(inner: TxPool): TxPool {
      if (!conditionals) return inner;
      return conditionalPool(
        inner,
        conditionals,
        () => {
          conditionals.prune((h) => pool.get(h) !== undefined);
          const view = ChainView.open(store.db, config);
          const head = view.head();
          const state = stateAt(view, head);
          const next = nextBlockTime(store);
          // The block being built follows the head; its time is inferred when the chain allows it.
          const time = typeof next === 'bigint' ? next : head.header.timestamp;
          return {
            check: (c) => {
              const h = checkHeaderConditional(c, head.header.number + 1n, time);
              if (h !== undefined) return `failed header check: ${h}`;
              const s = checkStateConditional(c, state);
              return s === undefined ? undefined : `failed state check: ${s}`;
            },
            release: () => view.release(),
          };
        },
        logger,
      );
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
