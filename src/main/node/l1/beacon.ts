// The beacon client: blobs for derivation from a beacon node's HTTP API, with fallbacks. Both endpoints are used:
// /eth/v1/beacon/blobs/{slot} (Fulu; blobs only, each checked by computing its commitment) and
// /eth/v1/beacon/blob_sidecars/{slot} (commitment and proof; the proof is verified). An endpoint that lacks the
// newer one is remembered and asked for sidecars from then on. Slots come from the block time, the beacon genesis
// time and SECONDS_PER_SLOT, read once at start (the health check).

import { backoffDelay } from '../../common/backoff.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { BYTES_PER_BLOB } from '../../protocol/blob/blobData.js';
import type { BlobVerifier, BlobVerifyItem } from './blobVerifier.js';
import { FaultReport } from './faultReport.js';
import type { BlobSource, IndexedBlobHash, L1BlockRef, L1CallOptions } from './interface.js';

export interface BeaconClientOptions {
  /** --l1.beacon */
  url: string;
  /** --l1.beacon-fallbacks: asked, in order, for blobs the main endpoint does not have. */
  fallbacks?: readonly string[] | undefined;
  /** --l1.beacon-header, `Key: Value`: sent to the main endpoint only (fallbacks are often other operators'). */
  header?: string | undefined;
  /** --l1.beacon.fetch-all-sidecars: ask for every sidecar of the slot and filter here. */
  fetchAllSidecars?: boolean | undefined;
  /** --l1.beacon.ignore: a failed health check at start is logged instead of fatal. */
  ignore?: boolean | undefined;
  timeoutMs?: number | undefined;
  /** Attempts per request on 429, 5xx, timeouts and broken connections. */
  maxAttempts?: number | undefined;
  retryBaseDelayMs?: number | undefined;
  retryMaxDelayMs?: number | undefined;
}

export const beaconClientDefaults = {
  fetchAllSidecars: false,
  ignore: false,
  timeoutMs: 30_000,
  maxAttempts: 5,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 4000,
} as const;

export interface BeaconClientDeps {
  logger: Logger;
  verifier: BlobVerifier;
  signal?: AbortSignal | undefined;
}

interface Endpoint {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** False once the endpoint answered /blobs as unsupported. */
  blobsApi: boolean;
}

class HttpStatusError extends TernError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('BEACON_HTTP', message, { severity: 'temporary' });
  }
}

const TRANSIENT = (status: number) => status === 429 || status >= 500;

/** An answer cut short or garbled on the way (not JSON): worth another attempt, unlike a well-formed wrong one. */
const GARBLED = 'BEACON_GARBLED';

export function parseHeader(header: string): [string, string] {
  const i = header.indexOf(':');
  const key = i > 0 ? header.slice(0, i).trim() : '';
  if (key === '') throw new TernError('USAGE', `beacon header "${header}" is not in the form "Key: Value"`);
  return [key, header.slice(i + 1).trim()];
}

const hexToBytes = (h: string, what: string): Uint8Array => {
  if (typeof h !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(h)) {
    throw new TernError('BEACON_BAD_RESPONSE', `${what} is not 0x-hex`);
  }
  return new Uint8Array(Buffer.from(h.slice(2), 'hex'));
};

export class BeaconClient implements BlobSource {
  readonly #opts: BeaconClientOptions;
  readonly #logger: Logger;
  readonly #verifier: BlobVerifier;
  readonly #signal: AbortSignal | undefined;
  readonly #endpoints: Endpoint[];
  #genesisTime: number | undefined;
  #secondsPerSlot: number | undefined;
  readonly #faults: FaultReport;

  constructor(opts: BeaconClientOptions, deps: BeaconClientDeps) {
    this.#opts = opts;
    this.#logger = deps.logger.child('beacon');
    this.#faults = new FaultReport(this.#logger, 'Beacon requests failing, retrying', 'lastPath');
    this.#verifier = deps.verifier;
    this.#signal = deps.signal;
    const headers: Record<string, string> = {};
    if (opts.header !== undefined && opts.header !== '') {
      const [k, v] = parseHeader(opts.header);
      headers[k] = v;
    }
    this.#endpoints = [
      { url: opts.url, headers, blobsApi: true },
      ...(opts.fallbacks ?? []).map((url) => ({ url, headers: {}, blobsApi: true })),
    ];
  }

  /**
   * The startup health check: genesis time and seconds per slot from the main endpoint. Throws BEACON_UNAVAILABLE
   * (critical) on failure unless `ignore` is set; then the values are fetched again at the first getBlobs.
   */
  async start(): Promise<void> {
    try {
      await this.#init();
      this.#logger.info('Connected to the beacon node', {
        genesisTime: this.#genesisTime,
        secondsPerSlot: this.#secondsPerSlot,
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#opts.ignore ?? beaconClientDefaults.ignore) {
        this.#logger.warn('Beacon endpoint health check failed; continuing (--l1.beacon.ignore)', { err: reason });
        return;
      }
      throw new TernError(
        'BEACON_UNAVAILABLE',
        `beacon endpoint health check failed (${reason}); fix --l1.beacon or set --l1.beacon.ignore to start anyway`,
        { severity: 'critical', cause: err },
      );
    }
  }

  /** The beacon slot of a layer-1 block time. */
  async slotOf(timestamp: number, opts: L1CallOptions = {}): Promise<number> {
    if (this.#genesisTime === undefined || this.#secondsPerSlot === undefined) await this.#init(opts.signal);
    const genesis = this.#genesisTime as number;
    if (timestamp < genesis) {
      throw new TernError('BEACON_BAD_SLOT', `block time ${timestamp} precedes the beacon genesis time ${genesis}`, {
        severity: 'critical',
      });
    }
    return Math.floor((timestamp - genesis) / (this.#secondsPerSlot as number));
  }

  async getBlobs(ref: L1BlockRef, hashes: readonly IndexedBlobHash[], opts: L1CallOptions = {}): Promise<Uint8Array[]> {
    if (hashes.length === 0) return [];
    const slot = await this.slotOf(ref.timestamp, opts);
    const out: (Uint8Array | undefined)[] = hashes.map(() => undefined);
    const invalid = new Set<number>();
    const failures: string[] = [];
    for (const ep of this.#endpoints) {
      const missing = hashes.map((_, i) => i).filter((i) => out[i] === undefined);
      if (missing.length === 0) break;
      try {
        const found = await this.#fromEndpoint(
          ep,
          slot,
          missing.map((i) => hashes[i] as IndexedBlobHash),
          opts.signal,
        );
        missing.forEach((i, k) => {
          const r = found[k];
          if (r === 'invalid') invalid.add(i);
          else if (r !== undefined) {
            out[i] = r;
            invalid.delete(i);
          }
        });
      } catch (err) {
        if (opts.signal?.aborted || this.#signal?.aborted) throw err;
        failures.push(`${ep.url}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const lost = out.indexOf(undefined);
    if (lost < 0) return out as Uint8Array[];
    const h = hashes[lost] as IndexedBlobHash;
    const where = `block ${ref.number} (${ref.hash}, slot ${slot})`;
    const detail = failures.length > 0 ? `; ${failures.join('; ')}` : '';
    const err = invalid.has(lost)
      ? new TernError('BLOB_INVALID', `blob ${h.index} ${h.hash} of ${where} failed verification at every source`, {
          severity: 'temporary',
        })
      : new TernError(
          'BLOB_NOT_FOUND',
          `blob ${h.index} ${h.hash} of ${where} is missing at the beacon endpoint and every fallback${detail}`,
          { severity: 'temporary' },
        );
    this.#logger.warn('Could not get blobs', { block: ref.number, hash: ref.hash, blob: h.hash, err: err.message });
    throw err;
  }

  /** One endpoint's answer per wanted blob: the verified blob, 'invalid', or undefined (not there). */
  async #fromEndpoint(
    ep: Endpoint,
    slot: number,
    wanted: readonly IndexedBlobHash[],
    signal: AbortSignal | undefined,
  ): Promise<(Uint8Array | 'invalid' | undefined)[]> {
    if (ep.blobsApi) {
      const q = wanted.map((w) => `versioned_hashes=${w.hash}`).join('&');
      try {
        const body = await this.#get(ep, `/eth/v1/beacon/blobs/${slot}?${q}`, signal);
        return await this.#matchBlobs(body, wanted, signal);
      } catch (err) {
        if (!(err instanceof HttpStatusError) || TRANSIENT(err.status)) throw err;
        // 400/404/405/501: an endpoint without the Fulu API (or without the slot): ask for sidecars instead, and
        // stop asking it for /blobs when the sidecars are there.
        const res = await this.#fromSidecars(ep, slot, wanted, signal);
        if (res.some((r) => r !== undefined)) {
          if (ep.blobsApi)
            this.#logger.info('Beacon endpoint lacks /eth/v1/beacon/blobs; using sidecars', { url: ep.url });
          ep.blobsApi = false;
        }
        return res;
      }
    }
    return this.#fromSidecars(ep, slot, wanted, signal);
  }

  async #fromSidecars(
    ep: Endpoint,
    slot: number,
    wanted: readonly IndexedBlobHash[],
    signal: AbortSignal | undefined,
  ): Promise<(Uint8Array | 'invalid' | undefined)[]> {
    const all = this.#opts.fetchAllSidecars ?? beaconClientDefaults.fetchAllSidecars;
    const query = all ? '' : `?indices=${wanted.map((w) => w.index).join(',')}`;
    let body: unknown;
    try {
      body = await this.#get(ep, `/eth/v1/beacon/blob_sidecars/${slot}${query}`, signal);
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return wanted.map(() => undefined);
      throw err;
    }
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new TernError('BEACON_BAD_RESPONSE', 'blob_sidecars answer has no data array');
    const byIndex = new Map<number, Record<string, unknown>>();
    for (const s of data as Record<string, unknown>[]) byIndex.set(Number(s?.index), s);
    const items: BlobVerifyItem[] = [];
    const at: number[] = [];
    wanted.forEach((w, k) => {
      const s = byIndex.get(w.index);
      if (s === undefined) return;
      items.push({
        blob: hexToBytes(s.blob as string, `sidecar ${w.index} blob`),
        commitment: hexToBytes(s.kzg_commitment as string, `sidecar ${w.index} commitment`),
        proof: hexToBytes(s.kzg_proof as string, `sidecar ${w.index} proof`),
        versionedHash: hexToBytes(w.hash, 'versioned hash'),
      });
      at.push(k);
    });
    const out: (Uint8Array | 'invalid' | undefined)[] = wanted.map(() => undefined);
    const shaped = items.filter((it) => it.blob.length === BYTES_PER_BLOB && it.commitment?.length === 48);
    if (shaped.length !== items.length) throw new TernError('BEACON_BAD_RESPONSE', 'sidecar with a wrong-sized field');
    const verdicts = items.length === 0 ? [] : await this.#verifier.verify(items, { signal });
    verdicts.forEach((v, j) => {
      const k = at[j] as number;
      if (v === 'ok') out[k] = (items[j] as BlobVerifyItem).blob;
      else {
        out[k] = 'invalid';
        this.#logger.warn('Beacon sidecar failed verification', {
          url: ep.url,
          slot,
          index: wanted[k]?.index,
          verdict: v,
        });
      }
    });
    return out;
  }

  /** Matches a /blobs answer (ordered by commitment, not by our request) to the wanted hashes by verifying each. */
  async #matchBlobs(
    body: unknown,
    wanted: readonly IndexedBlobHash[],
    signal: AbortSignal | undefined,
  ): Promise<(Uint8Array | 'invalid' | undefined)[]> {
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new TernError('BEACON_BAD_RESPONSE', 'blobs answer has no data array');
    const blobs = data.map((b, i) => hexToBytes(b as string, `blob ${i}`));
    if (blobs.some((b) => b.length !== BYTES_PER_BLOB)) throw new TernError('BEACON_BAD_RESPONSE', 'wrong-sized blob');
    const out: (Uint8Array | 'invalid' | undefined)[] = wanted.map(() => undefined);
    // Usually the answer is in the order asked; try that pairing first, then match the rest by hash.
    const items = blobs.map((blob, i) => ({
      blob,
      versionedHash: hexToBytes((wanted[i] ?? (wanted[0] as IndexedBlobHash)).hash, 'versioned hash'),
    }));
    const verdicts = await this.#verifier.verify(items, { signal });
    const unmatched: Uint8Array[] = [];
    verdicts.forEach((v, i) => {
      if (v === 'ok' && i < wanted.length) out[i] = blobs[i];
      else unmatched.push(blobs[i] as Uint8Array);
    });
    for (const blob of unmatched) {
      const open = wanted.map((_, k) => k).filter((k) => out[k] === undefined);
      if (open.length === 0) break;
      const tries = await this.#verifier.verify(
        open.map((k) => ({ blob, versionedHash: hexToBytes((wanted[k] as IndexedBlobHash).hash, 'versioned hash') })),
        { signal },
      );
      const hit = tries.indexOf('ok');
      if (hit >= 0) out[open[hit] as number] = blob;
    }
    // A blob the node returned that matches nothing means a wrong or corrupt answer: count the rest as invalid.
    if (blobs.length >= wanted.length) for (let k = 0; k < out.length; k++) out[k] ??= 'invalid';
    return out;
  }

  async #init(signal?: AbortSignal): Promise<void> {
    const main = this.#endpoints[0] as Endpoint;
    const genesis = (await this.#get(main, '/eth/v1/beacon/genesis', signal)) as { data?: { genesis_time?: unknown } };
    const spec = (await this.#get(main, '/eth/v1/config/spec', signal)) as { data?: { SECONDS_PER_SLOT?: unknown } };
    const genesisTime = Number(genesis?.data?.genesis_time);
    const secondsPerSlot = Number(spec?.data?.SECONDS_PER_SLOT);
    if (!Number.isSafeInteger(genesisTime) || genesisTime < 0) {
      throw new TernError('BEACON_BAD_RESPONSE', `bad genesis_time ${String(genesis?.data?.genesis_time)}`);
    }
    if (!Number.isSafeInteger(secondsPerSlot) || secondsPerSlot <= 0) {
      throw new TernError('BEACON_BAD_RESPONSE', `bad SECONDS_PER_SLOT ${String(spec?.data?.SECONDS_PER_SLOT)}`);
    }
    this.#genesisTime = genesisTime;
    this.#secondsPerSlot = secondsPerSlot;
  }

  /**
   * GET with retries (jittered exponential back-off) on 429, 5xx, timeouts, broken connections and cut answers;
   * every failed attempt is counted and reported (a rate-limited WARN with counts).
   */
  async #get(ep: Endpoint, path: string, signal: AbortSignal | undefined): Promise<unknown> {
    const attempts = this.#opts.maxAttempts ?? beaconClientDefaults.maxAttempts;
    const baseMs = this.#opts.retryBaseDelayMs ?? beaconClientDefaults.retryBaseDelayMs;
    const maxMs = this.#opts.retryMaxDelayMs ?? beaconClientDefaults.retryMaxDelayMs;
    for (let n = 1; ; n++) {
      try {
        return await this.#getOnce(ep, path, signal);
      } catch (err) {
        const transient =
          err instanceof HttpStatusError ? TRANSIENT(err.status) : (err as TernError).code !== 'BEACON_BAD_RESPONSE';
        const aborted = signal?.aborted || this.#signal?.aborted;
        if (!transient || aborted) throw err;
        const retry = n < attempts;
        this.#faults.fault(path.split('?')[0] as string, err, retry);
        if (!retry) throw err;
        const delay = backoffDelay(n, { baseMs, maxMs });
        this.#logger.debug('Retrying beacon request', { path, attempt: n, delayMs: delay });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  async #getOnce(ep: Endpoint, path: string, signal: AbortSignal | undefined): Promise<unknown> {
    const signals = [AbortSignal.timeout(this.#opts.timeoutMs ?? beaconClientDefaults.timeoutMs)];
    if (signal) signals.push(signal);
    if (this.#signal) signals.push(this.#signal);
    const url = `${ep.url.replace(/\/+$/, '')}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json', ...ep.headers },
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      throw new TernError('BEACON_HTTP', `GET ${path}: ${(err as Error).message}`, {
        severity: 'temporary',
        cause: err,
      });
    }
    const text = await res.text();
    if (!res.ok) throw new HttpStatusError(res.status, `GET ${path}: HTTP ${res.status} ${text.slice(0, 200)}`.trim());
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new TernError(GARBLED, `GET ${path}: answer is not JSON (cut short?)`, { severity: 'temporary' });
    }
  }
}
