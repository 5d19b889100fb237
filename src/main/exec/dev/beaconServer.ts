// The --dev chain's beacon API: the read-only endpoints a rollup node needs to fetch blobs without a beacon node
// (genesis, spec, blob sidecars, blobs), plus headers and the node endpoints tools probe. Shapes follow the
// beacon-APIs spec; block ids are slots, 'head', 'genesis', 'finalized', 'justified' or 0x-prefixed block roots.
// Served on a listener of its own (--dev.beacon.addr/--dev.beacon.port), so it needs no change to the JSON-RPC
// server's host and CORS rules.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { DevBeacon, DevBeaconBlock, DevBlobSidecar } from './beacon.js';

export interface BeaconServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Answered by /eth/v1/node/version. */
  version: string;
  chainId: bigint;
  depositContract: string;
}

const ZERO32 = `0x${'00'.repeat(32)}`;
const ZERO_SIGNATURE = `0x${'00'.repeat(96)}`;
/** The commitment inclusion proof has 17 branches (KZG_COMMITMENT_INCLUSION_PROOF_DEPTH); ours are zero. */
const INCLUSION_PROOF = Array.from({ length: 17 }, () => ZERO32);

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Query values, accepting both `k=a,b` and `k=a&k=b`. */
function queryList(params: URLSearchParams, name: string): string[] | undefined {
  const all = params.getAll(name);
  if (all.length === 0) return undefined;
  return all.flatMap((v) => v.split(',')).filter((v) => v !== '');
}

export function headerJson(b: DevBeaconBlock): Record<string, unknown> {
  return {
    message: {
      slot: b.header.slot.toString(),
      proposer_index: b.header.proposerIndex.toString(),
      parent_root: hex(b.header.parentRoot),
      state_root: hex(b.header.stateRoot),
      body_root: hex(b.header.bodyRoot),
    },
    signature: ZERO_SIGNATURE,
  };
}

export function sidecarJson(b: DevBeaconBlock, index: number, s: DevBlobSidecar): Record<string, unknown> {
  return {
    index: String(index),
    blob: hex(s.blob),
    kzg_commitment: hex(s.commitment),
    kzg_proof: hex(s.proof),
    signed_block_header: headerJson(b),
    kzg_commitment_inclusion_proof: INCLUSION_PROOF,
  };
}

export class DevBeaconServer {
  readonly #server: Server;
  #url: string | undefined;

  constructor(
    private readonly opts: BeaconServerOptions,
    private readonly beacon: DevBeacon,
    private readonly deps: { logger: Logger },
  ) {
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  get url(): string | undefined {
    return this.#url;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.opts.port, this.opts.host === 'localhost' ? '127.0.0.1' : this.opts.host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const a = this.#server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    this.#url = `http://${host}:${a.port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'method not allowed');
      const url = new URL(req.url ?? '/', 'http://beacon');
      const body = this.route(url.pathname, url.searchParams);
      if (body === undefined) res.writeHead(200, { 'content-length': 0 }).end();
      else send(res, 200, body);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) this.deps.logger.warn('Beacon API request failed', { url: req.url, err: String(err) });
      send(res, status, { code: status, message: (err as Error).message });
    }
  }

  /** The answer of a GET (undefined: an empty 200); throws HttpError. */
  route(path: string, query: URLSearchParams): unknown {
    const parts = path.replace(/\/+$/, '').split('/').filter(Boolean);
    const p = parts.join('/');
    if (p === 'eth/v1/beacon/genesis') return this.genesis();
    if (p === 'eth/v1/config/spec') return { data: this.spec() };
    if (p === 'eth/v1/node/version') return { data: { version: this.opts.version } };
    if (p === 'eth/v1/node/health') return undefined;
    if (p === 'eth/v1/node/syncing') {
      const head = this.beacon.head()?.header.slot ?? 0n;
      const data = { head_slot: String(head), sync_distance: '0', is_syncing: false, is_optimistic: false };
      return { data: { ...data, el_offline: false } };
    }
    if (parts.length === 5 && parts.slice(0, 3).join('/') === 'eth/v1/beacon') {
      const block = this.block(decodeURIComponent(parts[4]!));
      const meta = { execution_optimistic: false, finalized: true };
      switch (parts[3]) {
        case 'headers':
          return { ...meta, data: { root: hex(block.root), canonical: true, header: headerJson(block) } };
        case 'blob_sidecars':
          return { ...meta, data: this.sidecars(block, queryList(query, 'indices')) };
        case 'blobs':
          return { ...meta, data: this.blobs(block, queryList(query, 'versioned_hashes')) };
      }
    }
    throw new HttpError(404, `no route for ${path}`);
  }

  genesis(): unknown {
    return {
      data: {
        genesis_time: this.beacon.genesisTime.toString(),
        genesis_validators_root: ZERO32,
        genesis_fork_version: '0x00000000',
      },
    };
  }

  spec(): Record<string, string> {
    return {
      CONFIG_NAME: 'tern-dev',
      PRESET_BASE: 'mainnet',
      SECONDS_PER_SLOT: String(this.beacon.secondsPerSlot),
      SLOTS_PER_EPOCH: '32',
      DEPOSIT_CHAIN_ID: this.opts.chainId.toString(),
      DEPOSIT_NETWORK_ID: this.opts.chainId.toString(),
      DEPOSIT_CONTRACT_ADDRESS: this.opts.depositContract,
      GENESIS_FORK_VERSION: '0x00000000',
      MAX_BLOBS_PER_BLOCK: '9',
      FIELD_ELEMENTS_PER_BLOB: '4096',
      KZG_COMMITMENT_INCLUSION_PROOF_DEPTH: '17',
    };
  }

  /** Resolves a block id; 404 when the slot has no block (period 0 skips slots) or the root is unknown. */
  block(id: string): DevBeaconBlock {
    let block: DevBeaconBlock | undefined;
    if (id === 'head' || id === 'finalized' || id === 'justified') block = this.beacon.head();
    else if (id === 'genesis') block = this.beacon.genesis();
    else if (/^\d+$/.test(id)) block = this.beacon.bySlot(BigInt(id));
    else if (/^0x[0-9a-fA-F]{64}$/.test(id))
      block = this.beacon.byRoot(Uint8Array.from(Buffer.from(id.slice(2), 'hex')));
    else throw new HttpError(400, `invalid block id: ${id}`);
    if (block === undefined) throw new HttpError(404, 'Block not found');
    return block;
  }

  #kept(block: DevBeaconBlock): readonly DevBlobSidecar[] {
    if (block.sidecars === undefined)
      throw new HttpError(404, `blobs of slot ${block.header.slot} are no longer kept (retention)`);
    return block.sidecars;
  }

  sidecars(block: DevBeaconBlock, indices: string[] | undefined): unknown[] {
    const all = this.#kept(block);
    let wanted: number[] | undefined;
    if (indices !== undefined) {
      wanted = indices.map((i) => {
        if (!/^\d+$/.test(i)) throw new HttpError(400, `invalid blob index: ${i}`);
        return Number(i);
      });
    }
    const out: unknown[] = [];
    all.forEach((s, i) => {
      if (wanted === undefined || wanted.includes(i)) out.push(sidecarJson(block, i, s));
    });
    return out;
  }

  blobs(block: DevBeaconBlock, hashes: string[] | undefined): string[] {
    const all = this.#kept(block);
    if (hashes === undefined) return all.map((s) => hex(s.blob));
    const wanted = new Set(
      hashes.map((h) => {
        if (!/^0x[0-9a-fA-F]{64}$/.test(h)) throw new HttpError(400, `invalid versioned hash: ${h}`);
        return h.toLowerCase();
      }),
    );
    return all.filter((s) => wanted.has(hex(s.versionedHash))).map((s) => hex(s.blob));
  }
}
