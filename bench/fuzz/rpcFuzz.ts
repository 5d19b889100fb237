// The JSON-RPC fuzzer of the reliability suite: random requests over every namespace tern-exec serves (well-formed
// methods with wrong, missing, huge and odd arguments; unknown methods; broken JSON; odd batches), each answer
// checked: it is JSON, every reply is a JSON-RPC 2.0 object with the request's id and a result or an error, and bad
// input never gets -32603 (an internal error means a handler crashed on it). The target is a running tern-exec
// --dev (tests start one; `npm run fuzz` starts its own) and must be alive at the end with bounded memory.
import { request } from 'node:http';
import { type Rng, xorshiftRng } from '../rng.js';

/** The methods fuzzed, by namespace (what tern-exec --dev serves over HTTP). */
export const FUZZ_METHODS: readonly string[] = [
  ...[
    'accounts',
    'blobBaseFee',
    'blockNumber',
    'call',
    'chainId',
    'createAccessList',
    'estimateGas',
    'feeHistory',
    'gasPrice',
    'getBalance',
    'getBlockByHash',
    'getBlockByNumber',
    'getBlockReceipts',
    'getBlockTransactionCountByHash',
    'getBlockTransactionCountByNumber',
    'getCode',
    'getFilterChanges',
    'getFilterLogs',
    'getLogs',
    'getProof',
    'getRawTransactionByHash',
    'getStorageAt',
    'getTransactionByBlockHashAndIndex',
    'getTransactionByBlockNumberAndIndex',
    'getTransactionByHash',
    'getTransactionCount',
    'getTransactionReceipt',
    'getUncleByBlockHashAndIndex',
    'getUncleCountByBlockHash',
    'maxPriorityFeePerGas',
    'newBlockFilter',
    'newFilter',
    'newPendingTransactionFilter',
    'sendRawTransaction',
    'sendTransaction',
    'sign',
    'signTransaction',
    'syncing',
    'uninstallFilter',
  ].map((m) => `eth_${m}`),
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
  'txpool_content',
  'txpool_contentFrom',
  'txpool_inspect',
  'txpool_status',
  ...[
    'getRawBlock',
    'getRawHeader',
    'getRawReceipts',
    'getRawTransaction',
    'traceBlockByHash',
    'traceBlockByNumber',
    'traceCall',
    'traceTransaction',
    'preimage',
  ].map((m) => `debug_${m}`),
  'admin_nodeInfo',
  'admin_peers',
  'rpc_modules',
  'dev_reorg',
];

const hexOf = (r: Rng, bytes: number) => {
  let s = '0x';
  for (let i = 0; i < bytes; i++) s += r.int(256).toString(16).padStart(2, '0');
  return s;
};

/** A random JSON value, biased toward what the handlers decode (hex quantities, hashes, tags, tx objects). */
export function value(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 2 ? 12 : 16)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 2 ** 53, 1e308, -0, 7]);
    case 3:
      return r.pick(['', '0x', '0x0', '0x00', '0xg', 'latest', 'pending', 'safe', 'finalized', 'earliest', 'zz']);
    case 4:
      return hexOf(r, r.pick([1, 8, 20, 31, 32, 33, 48]));
    case 5:
      return `0x${r.int(2 ** 31).toString(16)}`;
    case 6:
      return `0x${'f'.repeat(r.pick([16, 64, 65, 200]))}`;
    case 7:
      return 'x'.repeat(r.pick([1, 100, 5000]));
    case 8:
      return hexOf(r, 20);
    case 9:
      return hexOf(r, 32);
    case 10:
      return r.pick(['0x1', '0x539', '0x10', '0xffffffffffffffff', '0x10000000000000000']);
    case 11:
      return '\u0000\ud800';
    case 12:
      return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
    case 13:
      return txObject(r, depth);
    case 14:
      return filterObject(r, depth);
    default:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [r.pick(['a', 'from', 'x', '']), value(r, depth + 1)]),
      );
  }
}

const TX_FIELDS = [
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'nonce',
  'data',
  'input',
  'accessList',
  'chainId',
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'authorizationList',
  'type',
] as const;

function txObject(r: Rng, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of TX_FIELDS) if (r.chance(0.3)) o[f] = value(r, depth + 1);
  return o;
}

function filterObject(r: Rng, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of ['fromBlock', 'toBlock', 'address', 'topics', 'blockHash'])
    if (r.chance(0.4)) o[f] = value(r, depth + 1);
  return o;
}

/** One request body: mostly a call of a known method with random params; sometimes broken on purpose. */
export function requestBody(r: Rng, id: number): string {
  const kind = r.int(40);
  if (kind === 0) return r.pick(['{', '[', '', 'null', '"x"', '{"jsonrpc":"2.0"', '[]', '[1,2]', '{}', '1e999']);
  const call = (i: number): Record<string, unknown> => {
    const method = r.chance(0.95) ? r.pick(FUZZ_METHODS) : r.pick(['eth_nope', '', 'rpc_', 'engine_newPayloadV3', 'x']);
    const out: Record<string, unknown> = { jsonrpc: r.chance(0.97) ? '2.0' : r.pick(['1.0', 2, null]), id: i, method };
    if (r.chance(0.9)) out.params = r.chance(0.9) ? Array.from({ length: r.int(4) }, () => value(r)) : value(r);
    if (r.chance(0.01)) out.id = r.pick([null, { a: 1 }, [1], 'string-id', 1.5]);
    return out;
  };
  if (kind === 1) return JSON.stringify(Array.from({ length: 1 + r.int(5) }, (_, k) => call(id * 10 + k)));
  return JSON.stringify(call(id));
}

export interface FuzzStats {
  requests: number;
  replies: number;
  nonJson: number;
  internalErrors: number;
  malformedReplies: number;
  transportErrors: number;
  /** A few examples of each problem, for the report. */
  examples: string[];
}

function post(url: URL, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Checks one reply object; returns a problem or undefined. */
function checkReply(reply: unknown): 'malformed' | 'internal' | undefined {
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) return 'malformed';
  const o = reply as Record<string, unknown>;
  if (o.jsonrpc !== '2.0' || !('id' in o)) return 'malformed';
  if ('error' in o) {
    const e = o.error as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object' || typeof e.code !== 'number' || typeof e.message !== 'string')
      return 'malformed';
    if (e.code === -32603) return 'internal';
    return undefined;
  }
  return 'result' in o ? undefined : 'malformed';
}

/** Sends `count` random requests, `concurrency` at a time, and checks every answer. */
export async function fuzz(
  rpcUrl: string,
  opts: { count: number; seed: number; concurrency?: number; timeoutMs?: number; onProgress?: (done: number) => void },
): Promise<FuzzStats> {
  const url = new URL(rpcUrl);
  const r = xorshiftRng(opts.seed);
  const stats: FuzzStats = {
    requests: 0,
    replies: 0,
    nonJson: 0,
    internalErrors: 0,
    malformedReplies: 0,
    transportErrors: 0,
    examples: [],
  };
  const example = (what: string, body: string, text: string) => {
    if (stats.examples.length < 20) stats.examples.push(`${what}: ${body.slice(0, 300)} -> ${text.slice(0, 300)}`);
  };
  let next = 0;
  const worker = async () => {
    for (;;) {
      const id = next++;
      if (id >= opts.count) return;
      const body = requestBody(r, id);
      stats.requests++;
      let res: { status: number; text: string };
      try {
        res = await post(url, body, opts.timeoutMs ?? 30_000);
      } catch (err) {
        stats.transportErrors++;
        example('transport', body, (err as Error).message);
        continue;
      }
      if (id % 1000 === 0) opts.onProgress?.(id);
      // Non-2xx answers are HTTP-level refusals (oversized, wrong content type): plain text is allowed there.
      if (res.status !== 200) continue;
      if (res.text === '') continue; // a batch of notifications only
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.text);
      } catch {
        stats.nonJson++;
        example('non-JSON', body, res.text);
        continue;
      }
      for (const reply of Array.isArray(parsed) ? parsed : [parsed]) {
        stats.replies++;
        const problem = checkReply(reply);
        if (problem === 'internal') {
          stats.internalErrors++;
          example('-32603', body, JSON.stringify(reply));
        } else if (problem === 'malformed') {
          stats.malformedReplies++;
          example('malformed reply', body, JSON.stringify(reply));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  return stats;
}
