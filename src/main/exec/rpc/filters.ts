// Polling filters (geth's eth/filters FilterAPI): eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
// eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter. Block and pending-transaction filters buffer what
// the head emitter and the pool announce; a log filter remembers the last block it reported and answers the logs
// of the blocks added since. A filter not polled for five minutes (geth's deadline) is removed.
import { randomBytes } from 'node:crypto';
import { checkArity, decodeBool, decodeString, optionalParam, param } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { txToJson } from '../../primitives/tx/json.js';
import { RpcError } from '../../protocol/jsonrpc/errors.js';
import type { HeadEvents } from '../chain/headEvents.js';
import type { TernTxPool } from '../txpool/pool.js';
import type { ExecRpcBackend } from './backend.js';
import { hex } from './format.js';
import { decodeLogFilter, getLogs, type LogFilter } from './logs.js';

/** geth's filter deadline. */
export const FILTER_TIMEOUT_MS = 5 * 60_000;
/** geth drops buffered hashes beyond this many per filter. */
const MAX_BUFFERED = 10_000;

type Filter =
  | { kind: 'blocks'; deadline: number; hashes: string[] }
  | { kind: 'pending'; deadline: number; hashes: Uint8Array[]; fullTx: boolean }
  | { kind: 'logs'; deadline: number; criteria: LogFilter; last: bigint };

/** geth's rpc.NewID: 16 random bytes as a quantity. */
function newId(): string {
  const h = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${h === '' ? '0' : h}`;
}

const filterNotFound = () => new RpcError(-32000, 'filter not found');

export interface FilterSystemOptions {
  timeoutMs?: number;
  now?: () => number;
}

export class FilterSystem {
  readonly #filters = new Map<string, Filter>();
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #unsubscribe: Array<() => void> = [];
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly backend: ExecRpcBackend,
    private readonly pool: TernTxPool | undefined,
    heads: HeadEvents,
    opts: FilterSystemOptions = {},
  ) {
    this.#timeoutMs = opts.timeoutMs ?? FILTER_TIMEOUT_MS;
    this.#now = opts.now ?? Date.now;
    this.#unsubscribe.push(
      heads.on((h) => {
        const hash = hex(h.hash);
        for (const f of this.#filters.values()) {
          if (f.kind === 'blocks' && f.hashes.length < MAX_BUFFERED) f.hashes.push(hash);
        }
      }),
    );
    if (pool) {
      this.#unsubscribe.push(
        pool.subscribe((hash) => {
          for (const f of this.#filters.values()) {
            if (f.kind === 'pending' && f.hashes.length < MAX_BUFFERED) f.hashes.push(hash);
          }
        }),
      );
    }
    this.#timer = setInterval(() => this.expire(), this.#timeoutMs);
    this.#timer.unref();
  }

  /** Removes the filters whose deadline passed. */
  expire(): void {
    const now = this.#now();
    for (const [id, f] of this.#filters) if (f.deadline <= now) this.#filters.delete(id);
  }

  close(): void {
    clearInterval(this.#timer);
    for (const u of this.#unsubscribe) u();
    this.#filters.clear();
  }

  get size(): number {
    return this.#filters.size;
  }

  #install(f: Filter): string {
    const id = newId();
    this.#filters.set(id, f);
    return id;
  }

  #get(id: string): Filter {
    const f = this.#filters.get(id);
    if (!f) throw filterNotFound();
    f.deadline = this.#now() + this.#timeoutMs;
    return f;
  }

  namespace(): Record<string, RpcHandler> {
    const b = this.backend;
    return {
      newFilter: (params) => {
        checkArity(params, 1);
        const criteria = decodeLogFilter(params[0]);
        return b.read((view) =>
          this.#install({
            kind: 'logs',
            deadline: this.#now() + this.#timeoutMs,
            criteria,
            last: view.head().header.number,
          }),
        );
      },
      newBlockFilter: (params) => {
        checkArity(params, 0);
        return this.#install({ kind: 'blocks', deadline: this.#now() + this.#timeoutMs, hashes: [] });
      },
      newPendingTransactionFilter: (params) => {
        checkArity(params, 0, 1);
        const fullTx = optionalParam(params, 0, decodeBool) ?? false;
        return this.#install({ kind: 'pending', deadline: this.#now() + this.#timeoutMs, hashes: [], fullTx });
      },
      getFilterChanges: (params) => {
        checkArity(params, 1);
        const f = this.#get(param(params, 0, decodeString));
        if (f.kind === 'blocks') return f.hashes.splice(0);
        if (f.kind === 'pending') {
          const hashes = f.hashes.splice(0);
          if (!f.fullTx) return hashes.map(hex);
          return hashes.flatMap((h) => {
            const t = this.pool?.get(h);
            return t ? [txToJson(t.tx, t.sender)] : [];
          });
        }
        return b.read((view) => {
          const head = view.head().header.number;
          if (head <= f.last) {
            f.last = head;
            return [];
          }
          // The blocks added since the last poll, narrowed by the filter's own range.
          let from = f.last + 1n;
          let to = head;
          const c = f.criteria;
          if (typeof c.fromBlock === 'bigint' && c.fromBlock > from) from = c.fromBlock;
          if (typeof c.toBlock === 'bigint' && c.toBlock < to) to = c.toBlock;
          f.last = head;
          if (from > to) return [];
          return getLogs(view, { addresses: c.addresses, topics: c.topics, fromBlock: from, toBlock: to });
        });
      },
      getFilterLogs: (params, ctx) => {
        checkArity(params, 1);
        const f = this.#filters.get(param(params, 0, decodeString));
        if (f?.kind !== 'logs') throw filterNotFound();
        return b.read((view) => getLogs(view, f.criteria, ctx.signal));
      },
      uninstallFilter: (params) => {
        checkArity(params, 1);
        return this.#filters.delete(param(params, 0, decodeString));
      },
    };
  }
}
