// The chain go-ethereum's graphql_test.go builds, rebuilt with tern's block builder and served by tern's RPC
// backend and GraphQL routes: chain id 1337, gas limit 11,500,000, Shanghai and Cancun from time 5 (block 1).
// Block 1 holds the EIP-2718 test's two transactions (a legacy and an access-list one from geth's test key, to
// 0xdad whose code SLOADs) and the withdrawals test's withdrawal (validator 5, amount 10); block 2 holds the
// concurrent-resolvers test's three calls to a contract that emits two LOG0s. Transaction hashes, senders and
// the withdrawals root depend only on those inputs, so geth's expected values hold here as they are.
import { privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { HttpRpcServer, type RpcServerAddress } from '../../../../../src/main/common/rpc/http.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { BlockBuilder, type BuildAttributes } from '../../../../../src/main/exec/chain/builder.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { type GraphqlHttpOptions, graphqlRoutes } from '../../../../../src/main/exec/graphql/http.js';
import type { GraphqlDeps } from '../../../../../src/main/exec/graphql/resolvers.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../src/main/exec/rpc/filters.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { GENESIS_BLOCK_FORKS } from '../../../../../src/main/primitives/chainConfig.js';

export const logger = createLogger({ level: 'silent', format: 'json' }).logger;

/** geth's test key (graphql_test.go) and its address. */
export const KEY = privateKeyToAccount('0xb71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291');
/** A second key for block 2's transactions (geth's test generates one). */
export const KEY2 = privateKeyToAccount(`0x${'42'.repeat(32)}`);
export const DAD = '0x0000000000000000000000000000000000000dad';
/** LOG0(0,0), LOG0(0,0), RETURN(0,0). */
export const LOGGER = '0x0000000000000000000000000000000000000bad';
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

function genesisJson(): Record<string, unknown> {
  return {
    config: {
      chainId: 1337,
      ...Object.fromEntries(GENESIS_BLOCK_FORKS.map((f) => [f, 0])),
      terminalTotalDifficulty: 0,
      shanghaiTime: 5,
      cancunTime: 5,
      blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0xaf79e0',
    difficulty: '0x0',
    baseFeePerGas: '0x3b9aca00',
    alloc: {
      [KEY.address.toLowerCase()]: { balance: '0x38d7ea4c68000' }, // 1e15 wei, geth's `funds`
      [DAD]: { balance: '0x0', code: '0x58585454' }, // PC PC SLOAD SLOAD
      [KEY2.address.toLowerCase()]: { balance: '0xde0b6b3a7640000' },
      [LOGGER]: { balance: '0x0', code: '0x60006000a060006000a060006000f3' },
    },
  };
}

export interface GraphqlTestChain {
  db: Database;
  store: ChainStore;
  backend: ExecRpcBackend;
  registry: RpcRegistry;
  pool: TernTxPool;
  deps: GraphqlDeps;
  /** Hashes of blocks 1 and 2 and of block 2's last transaction. */
  block1: string;
  block2: string;
  lastTx: string;
  close(): Promise<void>;
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/**
 * `blobs: true` adds block 3: an EIP-1559 transfer and a blob transaction (consensus form, one versioned hash) from
 * KEY2, for the fee and blob fields.
 */
export async function buildGraphqlChain(opts: { blobs?: boolean } = {}): Promise<GraphqlTestChain> {
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(parseGenesis(genesisJson()));
  const builder = await BlockBuilder.create(store, new InlineSenderRecovery(), { logger });
  const seal = async (attrs: Partial<BuildAttributes> & { timestamp: bigint }) => {
    const built = await builder.build(store.head().hash, {
      prevRandao: new Uint8Array(32),
      feeRecipient: new Uint8Array(20),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32),
      noTxPool: true,
      ...attrs,
    });
    await store.commitBlock({
      block: built.block,
      hash: built.hash,
      receipts: built.receipts,
      diff: built.diff,
      storageRoots: built.commitment.storageRoots,
      newNodes: built.commitment.newNodes,
    });
    return built;
  };
  const legacy = await KEY.signTransaction({
    type: 'legacy',
    chainId: 1337,
    nonce: 0,
    to: DAD,
    value: 100n,
    gas: 50_000n,
    gasPrice: 1_000_000_000n,
  });
  const accessList = await KEY.signTransaction({
    type: 'eip2930',
    chainId: 1337,
    nonce: 1,
    to: DAD,
    gas: 30_000n,
    gasPrice: 1_000_000_000n,
    value: 50n,
    accessList: [{ address: DAD, storageKeys: [`0x${'00'.repeat(32)}`] }],
  });
  const coinbase = new Uint8Array(20);
  coinbase[0] = 1; // common.Address{1}
  const b1 = await seal({
    timestamp: 10n,
    feeRecipient: coinbase,
    transactions: [bytes(legacy), bytes(accessList)],
    withdrawals: [{ index: 0n, validatorIndex: 5n, address: new Uint8Array(20), amount: 10n }],
  });
  const calls = await Promise.all(
    [0, 1, 2].map((nonce) =>
      KEY2.signTransaction({
        type: 'legacy',
        chainId: 1337,
        nonce,
        to: LOGGER,
        gas: 100_000n,
        gasPrice: 1_000_000_000n,
      }),
    ),
  );
  const b2 = await seal({ timestamp: 20n, transactions: calls.map(bytes) });
  if (opts.blobs) {
    const fees = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_500_000_000n };
    const transfer = await KEY2.signTransaction({
      type: 'eip1559',
      chainId: 1337,
      nonce: 3,
      to: DAD,
      value: 7n,
      gas: 50_000n,
      ...fees,
    });
    const blob = await KEY2.signTransaction({
      type: 'eip4844',
      chainId: 1337,
      nonce: 4,
      to: DAD,
      gas: 50_000n,
      ...fees,
      maxFeePerBlobGas: 10n,
      blobVersionedHashes: [`0x01${'11'.repeat(31)}`],
    });
    await seal({ timestamp: 30n, transactions: [bytes(transfer), bytes(blob)] });
  }

  const backend = new ExecRpcBackend(db, store.config(), { gasCap: 1_000_000n }, logger);
  const pool = await TernTxPool.open(dbPoolChain(db, store.config()), {}, { logger });
  const heads = headEvents(db);
  const stopHeads = heads.on(() => void pool.onNewHead());
  const filters = new FilterSystem(backend, pool, heads);
  const registry = registerExecApis(new RpcRegistry(), backend, { pool, heads, filters });
  const deps: GraphqlDeps = { backend, method: (name) => registry.lookupMethod(name), pool };
  return {
    db,
    store,
    backend,
    registry,
    pool,
    deps,
    block1: hex(b1.hash),
    block2: hex(b2.hash),
    lastTx: hex(keccak256(b2.block.transactions[2] as Uint8Array)),
    close: async () => {
      stopHeads();
      filters.close();
      await pool.close();
      await db.close();
    },
  };
}

/** An HTTP-RPC listener on a free port, with GraphQL mounted unless `graphql` is false. */
export async function serveHttp(
  chain: GraphqlTestChain,
  graphql: GraphqlHttpOptions | false = {},
): Promise<{ url: string; address: RpcServerAddress; stop(): Promise<void> }> {
  const server = new HttpRpcServer(
    {
      host: '127.0.0.1',
      port: 0,
      http: { apis: ['eth'] },
      ...(graphql === false ? {} : { routes: graphqlRoutes(chain.deps, graphql, logger) }),
    },
    { registry: chain.registry, logger },
  );
  const address = await server.start();
  return { url: address.url, address, stop: () => server.stop() };
}
