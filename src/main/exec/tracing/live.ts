// Live tracing (--vmtrace <name>, --vmtrace.jsonconfig <json>): a tracer over every transaction the node executes
// while importing and building blocks, as geth's live tracers run. Built in:
//   noop        hooks that do nothing (measures the cost of the hook path)
//   callTracer  the callTracer's frame tree of each transaction, one JSON line per transaction appended to the
//               file named by the config's "path" ({"path": "...", "onlyTopCall"?: bool, "withLog"?: bool});
//               each line is {"block": n, "txIndex": i, "txHash": "0x..", "result": {...}}. Costly: the EVM copies
//               stack and memory at every opcode while it is attached.
// RPC calls (eth_call, eth_estimateGas, debug_trace*) are not traced live, as in geth. The importer and builder take
// the tracer at construction (BlockImporter.create's `tracer` option, BuilderDeps.tracer).
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Address } from '@ethereumjs/util';
import { UsageError } from '../../common/errors.js';
import type { BlockContext, TxHooks } from '../evm/context.js';
import type { TransactionLike, TxResult } from '../evm/interface.js';
import { CallTracer } from './callTracer.js';
import { hexBytes } from './format.js';

export const LIVE_TRACER_NAMES = ['noop', 'callTracer'] as const;

/** A live tracer: transaction hooks plus a way to flush what it wrote when the node stops. */
export interface LiveTracer extends TxHooks {
  readonly name: string;
  close(): Promise<void>;
}

function bool(cfg: Record<string, unknown>, key: string): boolean | undefined {
  const v = cfg[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new UsageError(`--vmtrace.jsonconfig: "${key}" must be true or false`);
  return v;
}

class NoopLive implements LiveTracer {
  readonly name = 'noop';
  onTxStart(): void {}
  onTxEnd(): void {}
  async close(): Promise<void> {}
}

class CallTracerLive implements LiveTracer {
  readonly name = 'callTracer';
  readonly #out: WriteStream;
  #current: { tracer: CallTracer; block: bigint; index: number; hash: string | undefined } | undefined;
  #lastBlock = -1n;
  #index = 0;

  constructor(
    path: string,
    private readonly cfg: { onlyTopCall?: boolean | undefined; withLog?: boolean | undefined },
  ) {
    this.#out = createWriteStream(path, { flags: 'a' });
  }

  onTxStart(block: BlockContext, tx: TransactionLike, sender: Address): void {
    const number = block.env.number;
    if (number !== this.#lastBlock) {
      this.#lastBlock = number;
      this.#index = 0;
    }
    const tracer = new CallTracer(this.cfg);
    const hash = (tx as { hash?: unknown }).hash;
    this.#current = {
      tracer,
      block: number,
      index: this.#index++,
      hash: hash instanceof Uint8Array ? hexBytes(hash) : undefined,
    };
    tracer.onTxStart(block, tx, sender);
  }

  onTxEnd(result: TxResult | undefined, error: unknown): void {
    const c = this.#current;
    this.#current = undefined;
    if (c === undefined) return;
    c.tracer.onTxEnd(result, error);
    // A rejected transaction is not part of any block: nothing to record.
    if (result === undefined) return;
    let traced: unknown;
    try {
      traced = c.tracer.result();
    } catch (err) {
      traced = { error: err instanceof Error ? err.message : String(err) };
    }
    const line = {
      block: Number(c.block),
      txIndex: c.index,
      ...(c.hash !== undefined ? { txHash: c.hash } : {}),
      result: traced,
    };
    this.#out.write(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#out.end(resolve));
  }
}

/** The live tracer --vmtrace names, configured by --vmtrace.jsonconfig; a UsageError for an unknown name. */
export function createLiveTracer(name: string, jsonConfig: unknown): LiveTracer {
  const cfg =
    jsonConfig !== null && typeof jsonConfig === 'object' && !Array.isArray(jsonConfig)
      ? (jsonConfig as Record<string, unknown>)
      : {};
  switch (name) {
    case 'noop':
      return new NoopLive();
    case 'callTracer': {
      const path = cfg.path;
      if (typeof path !== 'string' || path === '') {
        throw new UsageError('--vmtrace callTracer needs a file: --vmtrace.jsonconfig \'{"path":"calls.jsonl"}\'');
      }
      return new CallTracerLive(path, { onlyTopCall: bool(cfg, 'onlyTopCall'), withLog: bool(cfg, 'withLog') });
    }
    default:
      throw new UsageError(
        `unknown --vmtrace tracer "${name}": the built-in live tracers are ${LIVE_TRACER_NAMES.join(', ')}`,
      );
  }
}
