// A layer-1 JSON-RPC stand-in for the L1 client's reliability test and catch-up benchmark: a chain of empty blocks
// with real hashes, served by number (and `latest`) and by hash, single calls and batches.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Header, headerHash, headerToJson } from '../../src/main/primitives/block/header.js';

const EMPTY_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex');
const EMPTY_UNCLES = Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** Blocks 0..count-1 as eth_getBlockByNumber answers them (no transactions). */
export function emptyChain(count: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  let parent: Uint8Array = new Uint8Array(32);
  for (let n = 0; n < count; n++) {
    const h: Header = {
      parentHash: parent,
      uncleHash: new Uint8Array(EMPTY_UNCLES),
      coinbase: new Uint8Array(20),
      stateRoot: new Uint8Array(32).fill(n & 0xff),
      transactionsRoot: new Uint8Array(EMPTY_ROOT),
      receiptsRoot: new Uint8Array(EMPTY_ROOT),
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number: BigInt(n),
      gasLimit: 30_000_000n,
      gasUsed: 0n,
      timestamp: 1_700_000_000n + BigInt(12 * n),
      extraData: new Uint8Array(0),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: 7n,
    };
    const hash = headerHash(h);
    out.push({ ...headerToJson(h), hash: hex(hash), transactions: [] });
    parent = hash;
  }
  return out;
}

export interface FakeL1 {
  readonly url: string;
  readonly blocks: ReadonlyArray<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startFakeL1(count: number): Promise<FakeL1> {
  const blocks = emptyChain(count);
  const byHash = new Map(blocks.map((b) => [b.hash as string, b]));
  const answer = (req: { id: unknown; method: string; params?: unknown[] }) => {
    const [id] = (req.params ?? []) as [string];
    let result: unknown = null;
    if (req.method === 'eth_getBlockByNumber') result = id === 'latest' ? blocks.at(-1) : blocks[Number(id)];
    if (req.method === 'eth_getBlockByHash') result = byHash.get(id);
    return { jsonrpc: '2.0', id: req.id, result: result ?? null };
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const out = Array.isArray(body) ? body.map(answer) : answer(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    blocks,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
