// eth_subscribe over WebSocket and IPC (geth's eth/filters EventSystem): newHeads sends each new head's header,
// logs the matching logs of each new head block one notification per log, newPendingTransactions the hashes (or,
// with `true`, the transactions) the pool makes pending. Each subscription stops listening when it ends.

import { decodeBool, optionalParam } from '../../common/rpc/params.js';
import type { RpcRegistry, Subscription, SubscriptionHandler } from '../../common/rpc/registry.js';
import { txToJson } from '../../primitives/tx/json.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { HeadEvents } from '../chain/headEvents.js';
import type { TernTxPool } from '../txpool/pool.js';
import type { ExecRpcBackend } from './backend.js';
import { headerJson, hex } from './format.js';
import { decodeLogFilter, getLogs, type LogFilter } from './logs.js';

function until(sub: Subscription, stop: () => void): Subscription {
  if (sub.signal.aborted) stop();
  else sub.signal.addEventListener('abort', stop, { once: true });
  return sub;
}

export function registerSubscriptions(
  registry: RpcRegistry,
  backend: ExecRpcBackend,
  heads: HeadEvents,
  pool: TernTxPool | undefined,
): RpcRegistry {
  const newHeads: SubscriptionHandler = (params, ctx) => {
    if (params.length > 0) throw serverError('too many arguments, want at most 0');
    const sub = ctx.createSubscription();
    return until(
      sub,
      heads.on((h) => {
        sub.notify(headerJson({ header: h.header, hash: h.hash }));
      }),
    );
  };

  const logs: SubscriptionHandler = (params, ctx) => {
    const criteria: LogFilter =
      params[0] === undefined || params[0] === null ? { addresses: [], topics: [] } : decodeLogFilter(params[0]);
    if (criteria.blockHash !== undefined) throw serverError('cannot subscribe to a block hash');
    const sub = ctx.createSubscription();
    return until(
      sub,
      heads.on((h) => {
        void backend
          .read((view) => getLogs(view, { addresses: criteria.addresses, topics: criteria.topics, blockHash: h.hash }))
          .then(
            (found) => {
              for (const log of found) sub.notify(log);
            },
            (err: unknown) => backend.logger.debug('logs subscription read failed', { err: String(err) }),
          );
      }),
    );
  };

  const pending: SubscriptionHandler = (params, ctx) => {
    if (!pool) throw serverError('the transaction pool is not running');
    const fullTx = optionalParam(params, 0, decodeBool) ?? false;
    const sub = ctx.createSubscription();
    return until(
      sub,
      pool.subscribe((hash) => {
        if (!fullTx) {
          sub.notify(hex(hash));
          return;
        }
        const t = pool.get(hash);
        if (t) sub.notify(txToJson(t.tx, t.sender));
      }),
    );
  };

  return registry
    .registerSubscription('eth', 'newHeads', newHeads)
    .registerSubscription('eth', 'logs', logs)
    .registerSubscription('eth', 'newPendingTransactions', pending);
}
