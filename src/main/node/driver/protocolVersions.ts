// --rollup.load-protocol-versions and --rollup.halt: read the superchain ProtocolVersions contract on L1
// (required() and recommended(), superchain-upgrades.md's 32-byte version format), log changes, and halt the node
// when the required version is ahead of ours at or above the chosen level (op-node's rule: 'major' halts on a newer
// major, 'minor' on a newer major or minor, 'patch' on any of the three).
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { fromHex, toHex } from '../derive/types.js';

export type HaltLevel = 'major' | 'minor' | 'patch' | 'none';

export function protocolVersion(major: number, minor: number, patch: number, prerelease = 0): Uint8Array {
  const v = new Uint8Array(32);
  const view = new DataView(v.buffer);
  view.setUint32(16, major);
  view.setUint32(20, minor);
  view.setUint32(24, patch);
  view.setUint32(28, prerelease);
  return v;
}

/** The protocol version tern-node implements: v10.0.0 (Jovian), as tern-exec reports. */
export const NODE_PROTOCOL_VERSION = protocolVersion(10, 0, 0);

function parts(v: Uint8Array): [number, number, number, number] {
  const view = new DataView(v.buffer, v.byteOffset, 32);
  return [view.getUint32(16), view.getUint32(20), view.getUint32(24), view.getUint32(28)];
}

export function formatProtocolVersion(v: Uint8Array): string {
  if (v.every((b) => b === 0)) return 'none';
  const [major, minor, patch, pre] = parts(v);
  return `v${major}.${minor}.${patch}${pre ? `-${pre}` : ''}`;
}

export function needsHalt(required: Uint8Array, ours: Uint8Array, level: HaltLevel | undefined): boolean {
  if (level === undefined || level === 'none' || required.every((b) => b === 0)) return false;
  if (required[0] !== 0 || ours[0] !== 0) return false; // unknown version type: nothing to compare
  const r = parts(required);
  const o = parts(ours);
  const depth = level === 'major' ? 1 : level === 'minor' ? 2 : 3;
  for (let i = 0; i < depth; i++) {
    if ((r[i] as number) > (o[i] as number)) return true;
    if ((r[i] as number) < (o[i] as number)) return false;
  }
  return false;
}

const selector = (sig: string) => toHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4));
const REQUIRED = selector('required()');
const RECOMMENDED = selector('recommended()');

/** An L1 eth_call at the latest block. */
export type L1Call = (to: string, data: string) => Promise<string>;

export interface ProtocolVersionsOptions {
  address: string;
  haltLevel?: HaltLevel | undefined;
  /** How often to read the contract again (--l1.runtime-config-reload-interval); ≤ 0 reads once. */
  intervalMs: number;
}

export interface ProtocolVersionsDeps {
  logger: Logger;
  call: L1Call;
  /** Called once when the rule says halt. */
  onHalt(reason: string): void;
  /** Called with every successful read (e.g. to signal the engine). */
  onUpdate?(required: Uint8Array, recommended: Uint8Array): void;
  signal?: AbortSignal | undefined;
}

export class ProtocolVersionsWatcher {
  readonly #opts: ProtocolVersionsOptions;
  readonly #deps: ProtocolVersionsDeps;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #last: string | undefined;
  #halted = false;

  constructor(opts: ProtocolVersionsOptions, deps: ProtocolVersionsDeps) {
    this.#opts = opts;
    this.#deps = deps;
    this.#log = deps.logger.child('protocol-versions');
    deps.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  async start(): Promise<void> {
    await this.check().catch((err) => this.#log.warn('Failed to read protocol versions', { err: String(err) }));
    if (this.#opts.intervalMs > 0) {
      this.#timer = setInterval(() => {
        void this.check().catch((err) => this.#log.warn('Failed to read protocol versions', { err: String(err) }));
      }, this.#opts.intervalMs);
      this.#timer.unref();
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Reads both versions once; returns them. */
  async check(): Promise<{ required: Uint8Array; recommended: Uint8Array }> {
    const read = async (data: string) => {
      const out = fromHex(await this.#deps.call(this.#opts.address, data));
      if (out.length !== 32) {
        throw new TernError('PROTOCOL_VERSIONS', `ProtocolVersions answered ${out.length} bytes, want 32`, {
          severity: 'temporary',
        });
      }
      return out;
    };
    const [required, recommended] = await Promise.all([read(REQUIRED), read(RECOMMENDED)]);
    const key = `${toHex(required)}/${toHex(recommended)}`;
    if (key !== this.#last) {
      this.#last = key;
      this.#log.info('Protocol versions', {
        required: formatProtocolVersion(required),
        recommended: formatProtocolVersion(recommended),
        ours: formatProtocolVersion(NODE_PROTOCOL_VERSION),
      });
    }
    this.#deps.onUpdate?.(required, recommended);
    if (!this.#halted && needsHalt(required, NODE_PROTOCOL_VERSION, this.#opts.haltLevel)) {
      this.#halted = true;
      this.#deps.onHalt(
        `required protocol version ${formatProtocolVersion(required)} is ahead of ours ` +
          `(${formatProtocolVersion(NODE_PROTOCOL_VERSION)}) at the ${this.#opts.haltLevel} level (--rollup.halt)`,
      );
    }
    return { required, recommended };
  }
}
