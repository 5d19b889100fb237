// anvil (Foundry, 1.7.1) as the devnet's layer 1, and the small beacon-API proxy tern-node's beacon client needs in
// front of it.
//
// anvil starts from the devnet's L1 genesis (`--init`, a geth genesis: config, alloc with code, storage and
// balances), Prague rules, and mines one block every `--block-time` seconds. Its genesis hash is not the one the
// devnet computes (anvil reports the empty trie as the genesis state root), so rollup.json is written after anvil
// answers, with anvil's block 0.
//
// anvil serves GET /eth/v1/beacon/genesis and /eth/v1/beacon/blobs/{id} with a block number as id, but not
// /eth/v1/config/spec. The proxy answers the spec with SECONDS_PER_SLOT = 1: anvil's block times are whole seconds
// and strictly increase, so the beacon client's slot (block time − genesis time) names exactly one block, which the
// proxy looks up by time and asks anvil for by number. Everything else is forwarded as is.
//
// anvil's `safe` is the head minus --slots-in-an-epoch blocks (default 32) and `finalized` the head minus twice that.
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../common/paths.js';
import { rpcCall } from './rpc.js';

/** The anvil binary from the @foundry-rs/anvil-linux-amd64 package, or undefined when it is not installed. */
export function anvilBinary(root = projectRoot()): string | undefined {
  const p = join(root, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
  return existsSync(p) ? p : undefined;
}

export interface AnvilArgsOptions {
  genesisFile: string;
  host: string;
  port: number;
  /** Seconds between blocks. */
  blockTime: number;
}

export function anvilArgs(o: AnvilArgsOptions): string[] {
  return [
    `--init=${o.genesisFile}`,
    '--hardfork=prague',
    `--block-time=${o.blockTime}`,
    `--host=${o.host}`,
    `--port=${o.port}`,
  ];
}

interface TimedBlock {
  number: string;
  timestamp: string;
}

/** The number of the block whose time is `time`, on the chain `block` reads; undefined when there is none. */
export async function blockNumberAt(
  time: number,
  block: (n: number | 'latest') => Promise<TimedBlock | null>,
): Promise<number | undefined> {
  const head = await block('latest');
  if (head === null) return undefined;
  let lo = 0;
  let hi = Number(head.number);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const b = await block(mid);
    if (b === null) return undefined;
    const t = Number(b.timestamp);
    if (t === time) return mid;
    if (t < time) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

export interface BeaconProxy {
  url: string;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Starts the beacon proxy for the anvil at `rpc` on host:port (0: any free port). */
export async function startBeaconProxy(o: { rpc: string; host: string; port: number }): Promise<BeaconProxy> {
  let genesisTime: number | undefined;
  const block = (n: number | 'latest') =>
    rpcCall<TimedBlock | null>(o.rpc, 'eth_getBlockByNumber', [
      typeof n === 'number' ? `0x${n.toString(16)}` : n,
      false,
    ]);
  const forward = async (path: string, res: ServerResponse) => {
    const r = await fetch(`${o.rpc}${path}`, { signal: AbortSignal.timeout(10_000) });
    res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await r.arrayBuffer()));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname === '/eth/v1/config/spec') return json(res, 200, { data: { SECONDS_PER_SLOT: '1' } });
    const blobs = /^\/eth\/v1\/beacon\/blobs\/(\d+)$/.exec(url.pathname);
    if (blobs) {
      genesisTime ??= Number((await block(0))?.timestamp);
      const n = await blockNumberAt(genesisTime + Number(blobs[1]), block);
      if (n === undefined) return json(res, 404, { code: 404, message: `no layer-1 block at slot ${blobs[1]}` });
      return forward(`/eth/v1/beacon/blobs/${n}${url.search}`, res);
    }
    return forward(`${url.pathname}${url.search}`, res);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) json(res, 502, { code: 502, message: `anvil: ${err.message}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
