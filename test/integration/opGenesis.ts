// Shared by the integration tests and the in-process engine tests: an OP-Stack L2 genesis (geth format) with the
// predeploys execution reads — the L1Block and GasPriceOracle behind contracts-bedrock's Proxy (admin zero, so the
// network-upgrade transactions' upgradeTo calls from address zero work), the L2ToL1MessagePasser and the fee
// vaults — with fork times of the test's choosing; a tern-exec (ChainStore, importer, builder, EngineApi) on a
// memory database started from it; its auth RPC (engine + eth namespaces) for the HTTP paths; and the matching
// rollup config.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../src/main/common/logger/index.js';
import { createAuthRpcServer, GETH_AUTH_APIS } from '../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../src/main/common/rpc/registry.js';
import { l1BlockFrontCode } from '../../src/main/devnet/contracts.js';
import { BlockBuilder } from '../../src/main/exec/chain/builder.js';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../src/main/exec/chain/importer.js';
import { type Database, openDatabase } from '../../src/main/exec/db/open.js';
import { EngineApi } from '../../src/main/exec/engine/api.js';
import { registerEngineApi } from '../../src/main/exec/engine/register.js';
import { InlineBlockExecutor } from '../../src/main/exec/executor/inline.js';
import { WorkerBlockExecutor } from '../../src/main/exec/executor/worker.js';
import { registerExecApis } from '../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../src/main/exec/rpc/backend.js';
import type { CallPool } from '../../src/main/exec/rpc/call.js';
import { InlineSenderRecovery } from '../../src/main/exec/senders/inline.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { GENESIS_BLOCK_FORKS } from '../../src/main/primitives/chainConfig.js';
import { encodeHoloceneExtraData } from '../../src/main/primitives/op/eip1559.js';
import { type RlpInput, rlpEncode } from '../../src/main/primitives/rlp.js';
import { parseRollupConfig, type RollupConfig } from '../../src/main/primitives/rollup/config.js';

export const hex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;
export const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const qty = (n: bigint | number) => `0x${n.toString(16)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

export const PREDEPLOY = {
  gasPriceOracle: '0x420000000000000000000000000000000000000f',
  sequencerFeeVault: '0x4200000000000000000000000000000000000011',
  l1Block: '0x4200000000000000000000000000000000000015',
  messagePasser: '0x4200000000000000000000000000000000000016',
  baseFeeVault: '0x4200000000000000000000000000000000000019',
  l1FeeVault: '0x420000000000000000000000000000000000001a',
  operatorFeeVault: '0x420000000000000000000000000000000000001b',
} as const;
/** OP's implementation address scheme: 0xc0d3c0d3… with the predeploy's low bytes. */
export const IMPL = {
  l1Block: '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30015',
  gasPriceOracle: '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3000f',
  /** The Isthmus L1-info front (devnet/contracts.ts) in front of the 0.17 L1Block, when Isthmus is at genesis. */
  l1BlockFront: '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d31015',
} as const;
/** ERC-1967 slots. */
export const PROXY_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
export const EIP1559 = { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n } as const;

const require = createRequire(import.meta.url);
/** Deployed bytecode of a contracts-bedrock 0.17.1 contract. */
export function bedrock(name: string): string {
  const a = require(`contracts-bedrock-0171/forge-artifacts/${name}.sol/${name}.json`) as {
    deployedBytecode: { object: string };
  };
  return a.deployedBytecode.object.toLowerCase();
}

/** Fork activation times (seconds); absent: never. Bedrock and Regolith are always at genesis. */
export interface OpForkTimes {
  canyon?: number;
  delta?: number;
  ecotone?: number;
  fjord?: number;
  granite?: number;
  holocene?: number;
  isthmus?: number;
}

export function opChainConfig(chainId: bigint, f: OpForkTimes): Record<string, unknown> {
  const blocks = [...GENESIS_BLOCK_FORKS, 'bedrockBlock'];
  const t = (name: string, v: number | undefined) => (v === undefined ? {} : { [name]: v });
  return {
    chainId: Number(chainId),
    ...Object.fromEntries(blocks.map((b) => [b, 0])),
    terminalTotalDifficulty: 0,
    regolithTime: 0,
    ...t('shanghaiTime', f.canyon),
    ...t('canyonTime', f.canyon),
    ...t('deltaTime', f.delta),
    ...t('cancunTime', f.ecotone),
    ...t('ecotoneTime', f.ecotone),
    ...t('fjordTime', f.fjord),
    ...t('graniteTime', f.granite),
    ...t('holoceneTime', f.holocene),
    ...t('pragueTime', f.isthmus),
    ...t('isthmusTime', f.isthmus),
    optimism: {
      eip1559Elasticity: Number(EIP1559.elasticity),
      eip1559Denominator: Number(EIP1559.denominator),
      eip1559DenominatorCanyon: Number(EIP1559.denominatorCanyon),
    },
  };
}

export interface OpGenesisOptions {
  chainId: bigint;
  timestamp: number;
  gasLimit: bigint;
  forks: OpForkTimes;
  /** Funded accounts: address → wei. */
  funded: Record<string, bigint>;
  baseFee?: bigint;
}

type Alloc = Record<string, { balance: string; nonce?: string; code?: string; storage?: Record<string, string> }>;

export function opGenesisJson(o: OpGenesisOptions): Record<string, unknown> {
  const alloc: Alloc = {};
  for (const [a, wei] of Object.entries(o.funded)) alloc[a.toLowerCase()] = { balance: qty(wei) };
  const proxy = bedrock('Proxy');
  const atGenesis = (v: number | undefined) => v !== undefined && v <= o.timestamp;
  const isthmusAtGenesis = atGenesis(o.forks.isthmus);
  alloc[IMPL.l1Block] = { balance: '0x0', code: bedrock('L1Block') };
  if (isthmusAtGenesis)
    alloc[IMPL.l1BlockFront] = { balance: '0x0', code: hex(l1BlockFrontCode(BigInt(IMPL.l1Block))) };
  alloc[PREDEPLOY.l1Block] = {
    balance: '0x0',
    code: proxy,
    storage: { [PROXY_IMPLEMENTATION_SLOT]: word(BigInt(isthmusAtGenesis ? IMPL.l1BlockFront : IMPL.l1Block)) },
  };
  alloc[IMPL.gasPriceOracle] = { balance: '0x0', code: bedrock('GasPriceOracle') };
  // Slot 0 of GasPriceOracle: isEcotone (byte 0), isFjord (byte 1), set here when the fork is at genesis.
  const gpoFlags = (atGenesis(o.forks.ecotone) ? 1n : 0n) | (atGenesis(o.forks.fjord) ? 0x100n : 0n);
  alloc[PREDEPLOY.gasPriceOracle] = {
    balance: '0x0',
    code: proxy,
    storage: { [PROXY_IMPLEMENTATION_SLOT]: word(BigInt(IMPL.gasPriceOracle)), [word(0n)]: word(gpoFlags) },
  };
  alloc[PREDEPLOY.messagePasser] = { balance: '0x0', code: bedrock('L2ToL1MessagePasser') };
  alloc[PREDEPLOY.sequencerFeeVault] = { balance: '0x0', code: bedrock('SequencerFeeVault') };
  alloc[PREDEPLOY.baseFeeVault] = { balance: '0x0', code: bedrock('BaseFeeVault') };
  alloc[PREDEPLOY.l1FeeVault] = { balance: '0x0', code: bedrock('L1FeeVault') };
  const holoceneAtGenesis = atGenesis(o.forks.holocene);
  return {
    config: opChainConfig(o.chainId, o.forks),
    nonce: '0x0',
    timestamp: qty(o.timestamp),
    extraData: holoceneAtGenesis
      ? hex(encodeHoloceneExtraData({ denominator: EIP1559.denominatorCanyon, elasticity: EIP1559.elasticity }))
      : '0x',
    gasLimit: qty(o.gasLimit),
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: qty(o.baseFee ?? 1_000_000_000n),
    ...(atGenesis(o.forks.ecotone) ? { excessBlobGas: '0x0', blobGasUsed: '0x0' } : {}),
    number: '0x0',
    gasUsed: '0x0',
    parentHash: `0x${'00'.repeat(32)}`,
    alloc,
  };
}

/** A tern-exec in this process: its chain and its Engine API handlers. */
export interface ExecNode {
  db: Database;
  store: ChainStore;
  api: EngineApi;
  genesisHash: Uint8Array;
  logger: Logger;
  close(): Promise<void>;
}

export const silentLogger = (): Logger => createLogger({ level: 'silent', format: 'json' }).logger;

/**
 * `executor: 'worker'`: the BlockExecutor's worker twin over an LMDB database in a temporary directory (its thread
 * loads from dist/); default the inline twin over the memory database.
 */
export async function startExec(
  genesis: Record<string, unknown>,
  logger = silentLogger(),
  opts: { executor?: 'inline' | 'worker' } = {},
): Promise<ExecNode> {
  const datadir = opts.executor === 'worker' ? mkdtempSync(join(tmpdir(), 'tern-exec-')) : undefined;
  const db = await openDatabase(datadir === undefined ? { engine: 'memory' } : { datadir });
  const store = new ChainStore(db);
  const { hash } = await store.initGenesis(parseGenesis(genesis));
  const senders = new InlineSenderRecovery();
  const inline = new InlineBlockExecutor(
    store,
    await BlockImporter.create(store, senders, logger),
    await BlockBuilder.create(store, senders, { logger }),
  );
  const worker =
    db.paths === undefined
      ? undefined
      : await WorkerBlockExecutor.start(store, {
          paths: db.paths,
          blockCacheBytes: 1 << 20,
          stages: { workers: false, hasher: {}, senderChunk: 64 },
        });
  const api = new EngineApi(store, worker ?? inline, {}, { logger });
  const close = async () => {
    await worker?.close();
    await db.close();
    if (datadir !== undefined) rmSync(datadir, { recursive: true, force: true });
  };
  return { db, store, api, genesisHash: hash, logger, close };
}

/** The exec's authenticated RPC (engine and eth, as tern-exec serves them on --authrpc.port). */
export async function serveAuthRpc(
  exec: ExecNode,
  jwtSecret: Uint8Array,
  callPool?: CallPool,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const registry = registerEngineApi(new RpcRegistry(), exec.api);
  const backend = new ExecRpcBackend(exec.db, exec.store.config(), {}, exec.logger);
  backend.calls.usePool(callPool);
  registerExecApis(registry, backend);
  const server = createAuthRpcServer(
    { host: '127.0.0.1', port: 0, jwtSecret, apis: GETH_AUTH_APIS },
    { registry, logger: exec.logger },
  );
  const { url } = await server.start();
  return { url, stop: () => server.stop() };
}

export interface RollupConfigOptions {
  l2Genesis: { hash: string; time: number };
  l1Genesis: { hash: string; number: number };
  chainId: bigint;
  forks: OpForkTimes;
  batcher: string;
  gasLimit: bigint;
  blockTime?: number;
  seqWindowSize?: number;
  channelTimeout?: number;
  batchInbox?: string;
  depositContract?: string;
  /** Ecotone-style scalar (version 1) at genesis; default: a Bedrock scalar. */
  scalar?: string;
}

export function rollupConfig(o: RollupConfigOptions): RollupConfig {
  const f = o.forks;
  const t = (name: string, v: number | undefined) => (v === undefined ? {} : { [name]: v });
  return parseRollupConfig({
    genesis: {
      l1: o.l1Genesis,
      l2: { hash: o.l2Genesis.hash, number: 0 },
      l2_time: o.l2Genesis.time,
      system_config: {
        batcherAddr: o.batcher,
        overhead: `0x${'00'.repeat(31)}bc`,
        scalar: o.scalar ?? `0x${'00'.repeat(29)}0a6fe0`,
        gasLimit: Number(o.gasLimit),
      },
    },
    block_time: o.blockTime ?? 2,
    max_sequencer_drift: 600,
    seq_window_size: o.seqWindowSize ?? 20,
    channel_timeout: o.channelTimeout ?? 30,
    l1_chain_id: 900,
    l2_chain_id: Number(o.chainId),
    regolith_time: 0,
    ...t('canyon_time', f.canyon),
    ...t('delta_time', f.delta),
    ...t('ecotone_time', f.ecotone),
    ...t('fjord_time', f.fjord),
    ...t('granite_time', f.granite),
    ...t('holocene_time', f.holocene),
    ...t('isthmus_time', f.isthmus),
    batch_inbox_address: o.batchInbox ?? `0x${'ff'.repeat(20)}`,
    deposit_contract_address: o.depositContract ?? `0x${'dd'.repeat(20)}`,
    chain_op_config: {
      eip1559Elasticity: Number(EIP1559.elasticity),
      eip1559Denominator: Number(EIP1559.denominator),
      eip1559DenominatorCanyon: Number(EIP1559.denominatorCanyon),
    },
  });
}

/** The address a CREATE from `sender` at `nonce` deploys to. */
export function createAddress(sender: string, nonce: bigint): string {
  return hex(keccak256(rlpEncode([bytes(sender), nonce] as RlpInput[])).subarray(12));
}

/** Init code that deploys `runtime` as is. */
export function deployCode(runtime: Uint8Array): Uint8Array {
  const prefix = Uint8Array.of(
    0x61,
    runtime.length >> 8,
    runtime.length & 0xff,
    0x80,
    0x60,
    0x0c,
    0x60,
    0x00,
    0x39,
    0x60,
    0x00,
    0xf3,
  );
  const out = new Uint8Array(prefix.length + runtime.length);
  out.set(prefix);
  out.set(runtime, prefix.length);
  return out;
}
