// The op-conductor RPC client (op-node's ConductorClient): conductor_leader, conductor_commitUnsafePayload and
// conductor_active over JSON-RPC, each bounded by --conductor.rpc-timeout and tried twice 50 ms apart, as op-node
// does. admin_overrideLeader switches it to "always leader, commit nothing" until restart.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { RpcClient } from '../../common/rpc/client.js';
import { executionPayloadToJson, hexOf } from '../../protocol/engine/types.js';
import type { PayloadEnvelopeLike, SequencerConductor } from './interface.js';

export interface ConductorClientOptions {
  /** --conductor.rpc */
  url: string;
  /** --conductor.rpc-timeout, per attempt. */
  timeoutMs?: number | undefined;
  attempts?: number | undefined;
  retryDelayMs?: number | undefined;
}

export const conductorClientDefaults = {
  url: 'http://127.0.0.1:8547',
  timeoutMs: 1000,
  attempts: 2,
  retryDelayMs: 50,
} as const;

export interface ConductorClientMetrics {
  recordRpcClientRequest?(method: string): (err?: unknown) => void;
}

export interface ConductorClientDeps {
  logger: Logger;
  metrics?: ConductorClientMetrics | undefined;
  signal?: AbortSignal | undefined;
}

/** op-node's JSON form of an ExecutionPayloadEnvelope. */
export function envelopeJson(env: PayloadEnvelopeLike): Record<string, unknown> {
  const out: Record<string, unknown> = { executionPayload: executionPayloadToJson(env.executionPayload) };
  if (env.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hexOf(env.parentBeaconBlockRoot);
  return out;
}

export class ConductorClient implements SequencerConductor {
  readonly enabled = true;
  readonly #opts: Required<ConductorClientOptions>;
  readonly #rpc: RpcClient;
  readonly #log: Logger;
  readonly #metrics: ConductorClientMetrics | undefined;
  #override = false;

  constructor(opts: ConductorClientOptions, deps: ConductorClientDeps) {
    this.#opts = {
      url: opts.url,
      timeoutMs: opts.timeoutMs ?? conductorClientDefaults.timeoutMs,
      attempts: opts.attempts ?? conductorClientDefaults.attempts,
      retryDelayMs: opts.retryDelayMs ?? conductorClientDefaults.retryDelayMs,
    };
    this.#rpc = new RpcClient(
      { url: opts.url, timeoutMs: this.#opts.timeoutMs },
      { logger: deps.logger, signal: deps.signal },
    );
    this.#log = deps.logger.child('conductor');
    this.#metrics = deps.metrics;
  }

  get leaderOverridden(): boolean {
    return this.#override;
  }

  async leader(): Promise<boolean> {
    if (this.#override) return true;
    const v = await this.#call<unknown>('conductor_leader', []);
    if (typeof v !== 'boolean')
      throw new TernError('CONDUCTOR_RPC', `conductor_leader answered ${JSON.stringify(v)}, not a boolean`, {
        severity: 'temporary',
      });
    return v;
  }

  async commitUnsafePayload(env: PayloadEnvelopeLike): Promise<void> {
    if (this.#override) return;
    await this.#call('conductor_commitUnsafePayload', [envelopeJson(env)]);
  }

  async active(): Promise<boolean> {
    if (this.#override) return true;
    return (await this.#call<unknown>('conductor_active', [])) === true;
  }

  async overrideLeader(): Promise<void> {
    this.#override = true;
    this.#log.warn('Conductor leadership overridden: sequencing without the conductor until restart');
  }

  async close(): Promise<void> {
    await this.#rpc.close();
  }

  async #call<T>(method: string, params: unknown[]): Promise<T> {
    let last: unknown;
    for (let attempt = 1; attempt <= this.#opts.attempts; attempt++) {
      const done = this.#metrics?.recordRpcClientRequest?.(method);
      try {
        const v = await this.#rpc.call<T>(method, params);
        done?.();
        return v;
      } catch (err) {
        done?.(err);
        last = err;
        if (attempt < this.#opts.attempts) await new Promise((r) => setTimeout(r, this.#opts.retryDelayMs));
      }
    }
    const msg = last instanceof Error ? last.message : String(last);
    throw new TernError('CONDUCTOR_RPC', `${method} failed at ${this.#opts.url}: ${msg}`, {
      severity: 'temporary',
      cause: last,
    });
  }
}
