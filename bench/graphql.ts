// GraphQL against JSON-RPC for the same read, on one HTTP-RPC listener in the same run: the hash and gas of every
// transaction in 100 blocks, as one query `blocks(from, to) { transactions { hash gas } }` POSTed to /graphql and
// as one JSON-RPC batch of 100 eth_getBlockByNumber(n, true) POSTed to /. The chain (100 blocks of 10 transfers)
// is built here with tern's block builder in an in-memory database. Client time (fetch, JSON parsing) is included
// on both sides.
import { Bench, type Task } from 'tinybench';
import { privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../src/main/common/logger/index.js';
import { HttpRpcServer } from '../src/main/common/rpc/http.js';
import { RpcRegistry } from '../src/main/common/rpc/registry.js';
import { BlockBuilder } from '../src/main/exec/chain/builder.js';
import { ChainStore } from '../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../src/main/exec/db/open.js';
import { graphqlRoutes } from '../src/main/exec/graphql/http.js';
import { registerExecApis } from '../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../src/main/exec/rpc/backend.js';
import { InlineSenderRecovery } from '../src/main/exec/senders/inline.js';
import { shanghaiGenesis } from './shanghaiGenesis.js';
import type { BenchRow, BenchSuite } from './suite.js';

const BLOCKS = 100;
const TXS_PER_BLOCK = 10;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

async function buildChain() {
  const account = privateKeyToAccount(`0x${'42'.repeat(32)}`);
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(shanghaiGenesis({ [account.address.toLowerCase()]: { balance: '0xde0b6b3a7640000' } }));
  const builder = await BlockBuilder.create(store, new InlineSenderRecovery(), { logger });
  let nonce = 0;
  for (let b = 1; b <= BLOCKS; b++) {
    const txs: Uint8Array[] = [];
    for (let i = 0; i < TXS_PER_BLOCK; i++) {
      const signed = await account.signTransaction({
        type: 'eip1559',
        chainId: 1337,
        nonce: nonce++,
        to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      txs.push(Uint8Array.from(Buffer.from(signed.slice(2), 'hex')));
    }
    const built = await builder.build(store.head().hash, {
      timestamp: BigInt(b * 2),
      prevRandao: new Uint8Array(32),
      feeRecipient: new Uint8Array(20),
      withdrawals: [],
      transactions: txs,
      noTxPool: true,
    });
    await store.commitBlock({
      block: built.block,
      hash: built.hash,
      receipts: built.receipts,
      diff: built.diff,
      storageRoots: built.commitment.storageRoots,
      newNodes: built.commitment.newNodes,
    });
  }
  return { db, store };
}

function row(task: Task | undefined, name: string, note: string): BenchRow {
  const r = task?.result;
  if (!r || (r.state !== 'completed' && r.state !== 'aborted-with-statistics')) {
    return { task: name, opsPerSec: 0, meanMicros: 0, note: r?.state === 'errored' ? r.error.message : 'not run' };
  }
  const { mean, p50, p99, rme, samplesCount } = r.latency;
  return {
    task: name,
    opsPerSec: mean > 0 ? 1000 / mean : 0,
    meanMicros: mean * 1000,
    note: `${note}p50 ${(p50 * 1000).toFixed(0)} µs, p99 ${(p99 * 1000).toFixed(0)} µs, ±${rme.toFixed(1)}%, ${samplesCount} samples`,
  };
}

async function run(): Promise<BenchRow[]> {
  const { db, store } = await buildChain();
  const backend = new ExecRpcBackend(db, store.config(), {}, logger);
  const registry = registerExecApis(new RpcRegistry(), backend);
  const server = new HttpRpcServer(
    {
      host: '127.0.0.1',
      port: 0,
      http: { apis: ['eth'] },
      routes: graphqlRoutes({ backend, method: (n) => registry.lookupMethod(n) }, {}, logger),
    },
    { registry, logger },
  );
  const { url } = await server.start();
  const query = JSON.stringify({ query: `{blocks(from:1,to:${BLOCKS}){transactions{hash gas}}}` });
  const batch = JSON.stringify(
    Array.from({ length: BLOCKS }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_getBlockByNumber',
      params: [`0x${(i + 1).toString(16)}`, true],
    })),
  );
  const post = async (path: string, body: string) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return res.json();
  };
  // Both sides must read the same transactions.
  const g = (await post('/graphql', query)) as { data: { blocks: Array<{ transactions: Array<{ hash: string }> }> } };
  const j = (await post('/', batch)) as Array<{ result: { transactions: Array<{ hash: string }> } }>;
  const gHashes = g.data.blocks.flatMap((b) => b.transactions.map((t) => t.hash));
  const jHashes = j.flatMap((r) => r.result.transactions.map((t) => t.hash));
  if (gHashes.length !== BLOCKS * TXS_PER_BLOCK || gHashes.join() !== jHashes.join()) {
    throw new Error('GraphQL and JSON-RPC disagree on the transactions');
  }
  const names = {
    graphql: `GraphQL blocks(1..${BLOCKS}){transactions{hash gas}}`,
    rpc: `JSON-RPC batch ${BLOCKS}× eth_getBlockByNumber(n, true)`,
  };
  const bench = new Bench({ name: 'graphql', time: 2000, warmupTime: 300 });
  bench.add(names.graphql, async () => {
    await post('/graphql', query);
  });
  bench.add(names.rpc, async () => {
    await post('/', batch);
  });
  try {
    await bench.run();
  } finally {
    await server.stop();
    await db.close();
  }
  const note = `${BLOCKS * TXS_PER_BLOCK} txs over HTTP; ops/s = requests/s; `;
  return [row(bench.getTask(names.graphql), names.graphql, note), row(bench.getTask(names.rpc), names.rpc, note)];
}

export const graphqlSuite: BenchSuite = { name: 'graphql', run };
