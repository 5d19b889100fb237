// The running tern-exec: the chain database (a genesis is required), the user RPC namespaces over it, and the
// listeners the options ask for — HTTP and WebSocket per --http* / --ws* (one socket when their ports agree),
// IPC at <datadir>/tern-exec.ipc unless --ipcdisable or --ipcpath says otherwise. Everything stops through the
// lifecycle: listeners first, the database last.
import { basename, isAbsolute, join } from 'node:path';
import { TernError, UsageError } from '../common/errors.js';
import type { Lifecycle } from '../common/lifecycle.js';
import type { Logger } from '../common/logger/index.js';
import type { HttpRpcServer, RpcServerAddress } from '../common/rpc/http.js';
import { IpcRpcServer } from '../common/rpc/ipc.js';
import {
  createAuthRpcServer,
  createUserRpcServers,
  GETH_AUTH_APIS,
  type UserRpcOptions,
} from '../common/rpc/listeners.js';
import { RpcRegistry } from '../common/rpc/registry.js';
import { obtainHex32File } from '../common/secretFile.js';
import type { AccountBackend } from './accounts/backend.js';
import { ExternalSigner } from './accounts/external/signer.js';
import { discoverHardwareWallets } from './accounts/hardware/discovery.js';
import type { AccountManager } from './accounts/manager.js';
import { BlockBuilder, type BuildTxSource } from './chain/builder.js';
import { ChainStore, recoverHead } from './chain/chainStore.js';
import { exitWhenSynced } from './chain/exitWhenSynced.js';
import { headEvents } from './chain/headEvents.js';
import { BlockImporter } from './chain/importer.js';
import { PendingBlocks, pendingBlocksDefaults } from './chain/pending.js';
import { dbPoolChain } from './chain/poolChain.js';
import { createPreimageRecorder, type PreimageOptions } from './chain/preimages.js';
import { openStagePools } from './chain/stagePools.js';
import { openChainDatabase } from './cmd/database.js';
import type { Database } from './db/open.js';
import { storageSize } from './db/resources.js';
import { EngineApi, type HaltLevel } from './engine/api.js';
import { registerEngineApi } from './engine/register.js';
import { EraStore, eraNetworkName } from './era/store.js';
import { InlineBlockExecutor } from './executor/inline.js';
import type { BlockExecutor } from './executor/interface.js';
import { WorkerBlockExecutor } from './executor/worker.js';
import { type GraphqlHttpOptions, graphqlRoutes } from './graphql/http.js';
import type { TrieHasherOptions } from './hasher/interface.js';
import type { ResolvedStorageSettings } from './history/options.js';
import { startStorageTasks } from './history/start.js';
import type { ExecObservability } from './metrics/observability.js';
import type { ExecContext } from './options.js';
import type { P2pNodeOptions } from './p2p/options.js';
import type { P2pServer } from './p2p/server.js';
import { startP2p } from './p2p/start.js';
import { setupChainConfig } from './rollup/chainSetup.js';
import type { RollupOptions } from './rollup/options.js';
import { createRollupServices } from './rollup/services.js';
import { openAccountManager } from './rpc/accounts.js';
import { clientVersion, registerExecApis } from './rpc/api.js';
import { ExecRpcBackend, type ExecRpcOptions } from './rpc/backend.js';
import { createCallPool } from './rpc/callPool.js';
import { FilterSystem } from './rpc/filters.js';
import { WorkerPendingBuilder } from './rpc/pendingBuilder.js';
import type { SendTxOptions } from './rpc/sendTx.js';
import { InlineSenderRecovery } from './senders/inline.js';
import { PooledSenderRecovery } from './senders/pooled.js';
import type { PeerSet, SnapServer } from './sync/peer.js';
import { type SyncMode, startSync } from './sync/service.js';
import { createSnapServer } from './sync/snapServer.js';
import { createLiveTracer } from './tracing/live.js';
import { createAdmission } from './txpool/admission.js';
import type { TxPoolOptions } from './txpool/options.js';
import { TernTxPool } from './txpool/pool.js';

/** geth names its socket geth.ipc; tern-exec's is tern-exec.ipc in the data directory. */
export const IPC_SOCKET_NAME = 'tern-exec.ipc';

/**
 * Transactions per recovery task for one payload: the coordinator awaits the block's senders (nothing to overlap),
 * so a block's tasks should cover every pool thread at a small per-task round trip (~35 µs).
 */
const NODE_SENDER_CHUNK = 64;

export interface ExecNodeOptions {
  /** The HTTP/WS listeners (undefined parts are off). */
  rpc: UserRpcOptions;
  /** The IPC socket path; undefined disables IPC. */
  ipcPath: string | undefined;
  backend: ExecRpcOptions;
  /** --txpool.* and --blobpool.* (paths already resolved); defaults without a journal or blob directory. */
  txpool?: Partial<TxPoolOptions> | undefined;
  /** --rpc.txfeecap, --rpc.allow-unprotected-txs */
  sendTx?: Partial<SendTxOptions> | undefined;
  /** The Engine API listener (--authrpc.*): the engine and eth namespaces behind a JWT. */
  auth?: { host: string; port: number; vhosts: string[] | undefined; jwtSecretPath: string } | undefined;
  /** --rollup.halt */
  rollupHalt?: HaltLevel | undefined;
  /** --rollup.computependingblock: `pending` is a block built from the pool on the head (chain/pending.ts). */
  computePendingBlock?: boolean | undefined;
  /** How often a pool change may rebuild that block (tests); chain/pending.ts's default otherwise. */
  pendingRebuildMs?: number | undefined;
  /** --datadir (admin_datadir). */
  datadir?: string | undefined;
  /** --vmtrace and --vmtrace.jsonconfig: a live tracer over block import and building (./tracing/live.ts). */
  vmtrace?: { name: string; config: unknown } | undefined;
  /** --vmdebug (KECCAK256 inputs) and --cache.preimages (trie keys; on in archive mode, as geth): ./chain/preimages.ts. */
  preimages?: PreimageOptions | undefined;
  /** --exitwhensynced: stop once the head is less than ten minutes old (./chain/exitWhenSynced.ts). */
  exitWhenSynced?: boolean | undefined;
  /** The other --rollup.* flags (sequencer, historical RPC, conditionals, interop); off when absent. */
  rollup?: RollupOptions | undefined;
  /** --history.*, --gcmode, --state.scheme, --cache*, --datadir.minfreedisk (history/options.ts). */
  storage?: ResolvedStorageSettings | undefined;
  /** --graphql*: GraphQL on the HTTP-RPC listener (./graphql); undefined when off. */
  graphql?: GraphqlHttpOptions | undefined;
  /** The trie hasher's node cache (--cache.trie share) and prefetch (--cache.noprefetch); default: neither. */
  trieHasher?: TrieHasherOptions | undefined;
  /** Threads running eth_call/estimateGas/createAccessList (./rpc/callPool.ts); default one per core, 0: inline. */
  callWorkers?: number | undefined;
  /**
   * newPayload's senders recovered on the worker pool and state roots hashed on the trie hasher's thread (default;
   * the hasher runs here anyway on the memory engine); false keeps both on this thread (tests, tiny machines).
   */
  blockWorkers?: boolean | undefined;
  /** --syncmode and --synctarget: block sync from the peers in `deps.peers` (./sync/service.ts). */
  sync?: { mode: SyncMode; target: Uint8Array | undefined } | undefined;
  /** Threads of each tx-admission pool (signatures, blob proofs); 0 checks on this thread. Default: every core. */
  admissionWorkers?: number | undefined;
  /** The execution-layer network (./p2p); absent: none (tests, embedded nodes). */
  p2p?: P2pNodeOptions | undefined;
  /**
   * Where newPayload executes and forkchoice moves the head (./executor): 'worker', a dedicated executor thread
   * over the same LMDB environment (the default on LMDB), or 'inline' on this thread (the default on the memory
   * engine). The memory engine, --vmtrace and preimage recording (--vmdebug, --cache.preimages) keep the inline
   * executor whatever this says; so does --dev (its sealer moves the head on this thread).
   */
  executor?: 'inline' | 'worker' | undefined;
}

export interface ExecNode {
  readonly backend: ExecRpcBackend;
  readonly registry: RpcRegistry;
  readonly servers: readonly HttpRpcServer[];
  /** Bound addresses of the HTTP/WS listeners, in the order of `servers`. */
  readonly addresses: readonly RpcServerAddress[];
  readonly ipc: IpcRpcServer | undefined;
  readonly txpool: TernTxPool;
  /** The Engine API handlers (also for an in-process consensus node). */
  readonly engine: EngineApi;
  /** The bound address of the auth RPC listener. */
  readonly authAddress: RpcServerAddress | undefined;
  /** The chain (the --dev sealer moves its head). */
  readonly store: ChainStore;
  /** snap/1 answers from this node's state, for the execution-layer transport to serve. */
  readonly snap: SnapServer;
  /** The execution-layer network when it runs (its PeerSet is what the sync side uses). */
  readonly p2p: P2pServer | undefined;
  /** Every call worker's warm-up call, done before the listeners open: the threads warmed (0 without call workers). */
  readonly callWorkersWarm: Promise<number>;
}

/** geth's IPCEndpoint: a bare file name lives in the data directory, anything with a directory part is used as is. */
export function ipcEndpoint(datadir: string, ipcPath: string | undefined): string {
  if (ipcPath === undefined || ipcPath === '') return join(datadir, IPC_SOCKET_NAME);
  if (isAbsolute(ipcPath) || basename(ipcPath) !== ipcPath) return ipcPath;
  return join(datadir, ipcPath);
}

/**
 * Serves the chain in `db`: registers the namespaces and starts the listeners, each with a stop hook on the
 * lifecycle. Throws a UsageError naming `tern-exec init` when the database has no genesis.
 */
export async function startExecNode(
  db: Database,
  opts: ExecNodeOptions,
  deps: {
    logger: Logger;
    lifecycle: Lifecycle;
    accounts?: AccountManager | AccountBackend | undefined;
    observability?: ExecObservability | undefined;
    /** The execution-layer peers (exec/p2p): with them the node syncs blocks (--synctarget, the Engine API's SYNCING). */
    peers?: PeerSet | undefined;
  },
): Promise<ExecNode> {
  const { logger, lifecycle } = deps;
  const preimages = opts.preimages === undefined ? undefined : createPreimageRecorder(opts.preimages);
  const store = new ChainStore(db, { preimages });
  let head: ReturnType<ChainStore['head']>;
  try {
    store.config();
    await recoverHead(store, logger);
    head = store.head();
  } catch (err) {
    if (err instanceof TernError && err.code === 'CHAIN_NOT_INITIALISED') {
      throw new UsageError(
        'the database has no genesis block: initialise it first with `tern-exec init --datadir <dir> <genesis.json>`',
      );
    }
    throw err;
  }
  const config = store.config();
  logger.info('Loaded chain', {
    chainId: config.chainId,
    head: head.number,
    hash: `0x${Buffer.from(head.hash).toString('hex')}`,
  });
  await startStorageTasks(db, config, opts.storage, { logger, lifecycle });
  const backend = new ExecRpcBackend(
    db,
    config,
    { clientVersion: clientVersion(), ...opts.backend },
    logger.child('rpc'),
  );
  const callPool = createCallPool(opts.callWorkers, logger.child('calls'));
  let callWorkersWarm: Promise<number> = Promise.resolve(0);
  if (callPool) {
    backend.calls.usePool(callPool);
    lifecycle.onStop('call workers', () => {
      backend.calls.abortAll();
      return callPool.close();
    });
    // Beside the rest of the start-up: the first users' calls then find every thread up and its first call done.
    const warming = performance.now();
    callWorkersWarm = backend.calls.warmUp().then(
      (threads) => {
        logger.debug('Call workers warmed', { threads, ms: Math.round(performance.now() - warming) });
        return threads;
      },
      (err: unknown) => {
        logger.warn('Call workers not warmed: their first calls start them', {
          err: err instanceof Error ? err.message : String(err),
        });
        return 0;
      },
    );
  }
  const heads = headEvents(db);
  // newPayload checks one block at a time (its answer says whether the block is valid, so its state root is known
  // before the next payload arrives): senders on the recovery pool, the root on the trie hasher's thread, while
  // this thread answers RPC (with the worker executor, the executor thread's own stages do that, and this trie
  // thread never starts). The pending and sequencer builders and tx-pool admission share the recovery pool.
  const stages = openStagePools(
    db,
    { workers: opts.blockWorkers ?? true, hasher: opts.trieHasher ?? {}, senderChunk: NODE_SENDER_CHUNK },
    { logger: { warn: (obj, msg) => logger.warn(msg, { ...obj }) } },
  );
  lifecycle.onStop('sender recovery pool and trie hasher', () => stages.close());
  const admission = createAdmission(
    opts.admissionWorkers,
    logger.child('txpool'),
    stages.senders instanceof PooledSenderRecovery ? stages.senders : undefined,
  );
  lifecycle.onStop('tx admission pools', () => admission.close());
  const txpool = await TernTxPool.open(dbPoolChain(db, config), opts.txpool ?? {}, {
    logger: logger.child('txpool'),
    admission,
  });
  const stopHeads = heads.on(() => {
    void txpool.onNewHead();
  });
  deps.observability?.txpool.setSource(() => ({ ...txpool.status(), slots: txpool.slots, local: txpool.localCount() }));
  const filters = new FilterSystem(backend, txpool, heads);
  lifecycle.onStop('transaction pool', async () => {
    stopHeads();
    filters.close();
    await txpool.close();
  });
  const rollup = opts.rollup
    ? createRollupServices(opts.rollup, { backend, pool: txpool, store, logger: logger.child('rollup') })
    : undefined;
  if (rollup) lifecycle.onStop('rollup RPC clients', () => rollup.close());
  // snap/1 answers from this node's state, served to peers by the execution-layer transport.
  const snap = createSnapServer({ snapshot: () => db.kv.snapshot() });
  const p2p =
    opts.p2p === undefined
      ? undefined
      : await startP2p(opts.p2p, {
          db,
          store,
          pool: txpool,
          networkId: backend.networkId,
          datadir: opts.datadir,
          clientVersion: backend.clientVersion,
          logger: logger.child('p2p'),
          lifecycle,
          snapServer: snap,
        });
  const registry = registerExecApis(
    new RpcRegistry(),
    backend,
    {
      pool: txpool,
      heads,
      filters,
      sendTx: opts.sendTx,
      accounts: deps.accounts,
      rollup: rollup?.eth,
    },
    { datadir: opts.datadir, network: p2p },
  );
  const metrics = deps.observability?.rpcMetrics((method) => registry.lookupMethod(method) !== undefined);
  const rpcDeps = { registry, logger, metrics };
  const live = opts.vmtrace ? createLiveTracer(opts.vmtrace.name, opts.vmtrace.config) : undefined;
  if (live) {
    lifecycle.onStop('live tracer', () => live.close());
    logger.info('Live tracing enabled', { tracer: live.name });
  }
  if (preimages)
    logger.info('Recording keccak preimages', { sha3: preimages.opts.sha3, trieKeys: preimages.opts.trieKeys });
  const flatState = opts.storage?.flatState;
  if (flatState !== undefined)
    logger.info(
      flatState.maxCachedAccounts > 0
        ? 'Allocated snapshot cache (flat state kept warm across blocks)'
        : 'Snapshot cache off: each block starts from a cold flat state',
      { accounts: flatState.maxCachedAccounts, code: storageSize(flatState.codeCacheBytes) },
    );
  const { senders, hasher } = stages;
  logger.info('Block import stages', {
    senders: stages.senders instanceof InlineSenderRecovery ? 'inline' : 'pool',
    stateRoots: stages.thread,
    prefetch: stages.prefetch,
  });
  const importer = await BlockImporter.create(store, senders, logger.child('import'), {
    tracer: live,
    flatState,
    hasher,
  });
  // The pool as the builders see it (conditional transactions checked before they are offered).
  const buildPool = rollup ? rollup.builderPool(txpool) : txpool;
  const builder = await BlockBuilder.create(store, senders, {
    logger: logger.child('builder'),
    pool: buildPool,
    tracer: live,
  });
  if (opts.computePendingBlock) {
    // A builder of its own: pending builds never share an executor with the Engine API's. On LMDB with call
    // workers the build runs there, on the worker's own snapshot; elsewhere only this thread can see the state.
    const paths = db.engine === 'lmdb' ? db.paths : undefined;
    const pendingBuilder =
      callPool !== undefined && paths !== undefined
        ? new WorkerPendingBuilder(callPool, store, paths, buildPool)
        : await BlockBuilder.create(store, senders, { logger: logger.child('pending'), pool: buildPool });
    const pending = new PendingBlocks(
      pendingBuilder,
      txpool,
      { minRebuildMs: opts.pendingRebuildMs ?? pendingBlocksDefaults.minRebuildMs },
      logger.child('pending'),
    );
    backend.pendingBlocks = pending;
    lifecycle.onStop('pending block', () => pending.close());
  }
  // The sync's peers: the execution-layer network's when it runs (tests may hand their own).
  const peers = deps.peers ?? p2p;
  if (peers === undefined && opts.sync?.target !== undefined)
    throw new UsageError('--synctarget needs peers to sync from, and this node runs without execution-layer peers');
  // The one owner of block execution: newPayload, forkchoice, the sync's imports and the sequencer's builds.
  const inline = new InlineBlockExecutor(store, importer, builder);
  // Stops after the Engine API (hooks run in reverse): a payload it holds is written before the stages close.
  lifecycle.onStop('block executor', () => inline.close());
  const executor = await openBlockExecutor(inline, {
    store,
    opts,
    flatState,
    logger,
    lifecycle,
    txPool: buildPool,
  });
  let engine: EngineApi | undefined;
  const sync =
    peers === undefined
      ? undefined
      : startSync({
          peers,
          store,
          importChain: (parent, blocks) => executor.importChain(parent, blocks),
          logger: logger.child('sync'),
          // Imports take turns with the Engine API's calls, which move the same head and flat state.
          exclusive: (fn) => (engine as EngineApi).exclusive(fn),
          mode: opts.sync?.mode,
        });
  if (sync !== undefined) {
    lifecycle.onStop('block sync', () => sync.close());
    backend.syncProgress = () => sync.progress();
  }
  engine = new EngineApi(
    store,
    executor,
    { rollupHalt: opts.rollupHalt },
    {
      logger: logger.child('engine'),
      halt: (reason) => void lifecycle.stop(reason),
      imported: deps.observability?.enabled ? (t) => deps.observability?.chain.recordImport(t) : undefined,
      sync,
    },
  );
  // The listeners open, and a --synctarget run starts, once the call workers are warm: their warm-up ran beside the
  // start-up above, and neither the first payloads, the sync's first imports nor the first users' reads compete with
  // it for the cores (a sync started earlier could also finish before eth_syncing can be asked).
  await callWorkersWarm;
  if (sync !== undefined && opts.sync?.target !== undefined) sync.target(opts.sync.target);
  registerEngineApi(registry, engine);
  let authAddress: RpcServerAddress | undefined;
  if (opts.auth) {
    const jwt = obtainHex32File(opts.auth.jwtSecretPath, 'JWT secret');
    if (jwt.created) logger.warn('Generated a new JWT secret for the Engine API', { path: opts.auth.jwtSecretPath });
    const auth = createAuthRpcServer(
      {
        host: opts.auth.host,
        port: opts.auth.port,
        vhosts: opts.auth.vhosts,
        jwtSecret: jwt.secret,
        apis: GETH_AUTH_APIS,
      },
      rpcDeps,
    );
    lifecycle.onStop('auth RPC', () => auth.stop());
    authAddress = await auth.start();
    logger.info('Engine API listening', { address: authAddress });
  }

  // geth mounts GraphQL on the HTTP-RPC listener; it reads through the same backend and handlers as JSON-RPC.
  const graphql =
    opts.graphql && opts.rpc.http
      ? graphqlRoutes({ backend, method: (name) => registry.lookupMethod(name), pool: txpool }, opts.graphql, logger)
      : undefined;
  const rpcOpts = graphql && opts.rpc.http ? { ...opts.rpc, http: { ...opts.rpc.http, routes: graphql } } : opts.rpc;
  const servers = createUserRpcServers(rpcOpts, rpcDeps);
  const addresses: RpcServerAddress[] = [];
  for (const server of servers) {
    lifecycle.onStop('user RPC', () => server.stop());
    addresses.push(await server.start());
  }
  let ipc: IpcRpcServer | undefined;
  if (opts.ipcPath !== undefined) {
    const server = new IpcRpcServer(
      {
        path: opts.ipcPath,
        batchRequestLimit: opts.rpc.batchRequestLimit,
        batchResponseMaxSize: opts.rpc.batchResponseMaxSize,
      },
      rpcDeps,
    );
    lifecycle.onStop('IPC', () => server.stop());
    await server.start();
    ipc = server;
  }
  if (opts.exitWhenSynced === true) {
    const off = exitWhenSynced(db, { logger, stop: (reason) => lifecycle.stop(reason) });
    lifecycle.onStop('exit when synced', () => {
      off();
    });
  }
  deps.observability?.chainReady(store);
  return { backend, registry, servers, addresses, ipc, txpool, engine, authAddress, store, snap, p2p, callWorkersWarm };
}

/**
 * --datadir.era: era1 archives found there serve the canonical blocks the database does not hold (db/chain.ts
 * falls back to them), so history dropped from the database keeps answering eth_getBlockByNumber and friends.
 */
export function attachEraHistory(db: Database, dir: string, logger: Logger): EraStore | undefined {
  const store = new ChainStore(db);
  let head: bigint;
  try {
    head = store.head().number;
  } catch {
    return undefined; // no chain yet: nothing to serve
  }
  const era = EraStore.open(dir, eraNetworkName(store.config().chainId), head);
  if (era === undefined) return undefined;
  db.history = era;
  const { first, last } = era.range();
  logger.info('Serving history from era1 archives', { dir, files: era.fileCount, first, last });
  return era;
}

/**
 * The executor the options ask for: the worker twin when asked and possible (an LMDB database, no in-thread hooks),
 * the inline twin otherwise, saying why.
 */
async function openBlockExecutor(
  inline: InlineBlockExecutor,
  ctx: {
    store: ChainStore;
    opts: ExecNodeOptions;
    flatState: ResolvedStorageSettings['flatState'] | undefined;
    logger: Logger;
    lifecycle: Lifecycle;
    /** Where the executor thread's builds take pool transactions from. */
    txPool: BuildTxSource;
  },
): Promise<BlockExecutor> {
  const { store, opts, logger } = ctx;
  const paths = store.db.paths;
  if ((opts.executor ?? (paths === undefined ? 'inline' : EXECUTOR_DEFAULT_ON_DISK)) === 'inline') return inline;
  const hooks = opts.vmtrace ? '--vmtrace' : store.preimages ? 'preimage recording' : undefined;
  if (paths === undefined || hooks !== undefined) {
    logger.info('Block executor stays on the main thread', {
      reason: paths === undefined ? 'the memory database cannot be shared with a thread' : `${hooks} is on`,
    });
    return inline;
  }
  try {
    const executor = await WorkerBlockExecutor.start(
      store,
      {
        paths,
        blockCacheBytes: Math.max(1 << 20, Math.floor(store.db.blockCache.maxBytes / 4)),
        stages: { workers: opts.blockWorkers ?? true, hasher: opts.trieHasher ?? {}, senderChunk: NODE_SENDER_CHUNK },
        flatState: ctx.flatState,
      },
      { logger, txPool: ctx.txPool },
    );
    ctx.lifecycle.onStop('block executor thread', () => executor.close());
    logger.info('Block executor runs on its own thread', {
      stateRoots: opts.blockWorkers === false ? 'inline' : 'worker',
    });
    return executor;
  } catch (err) {
    logger.warn('Block executor thread unavailable: blocks execute on the main thread', {
      err: err instanceof Error ? err.message : String(err),
    });
    return inline;
  }
}

/** The executor of a node on an LMDB database when the options do not say (ExecNodeOptions.executor). */
const EXECUTOR_DEFAULT_ON_DISK: 'inline' | 'worker' = 'worker';

/** tern-exec without a sub-command: open the database and serve it until stopped. */
export async function runNode(ctx: ExecContext, observability?: ExecObservability): Promise<ExecNode> {
  const logger = ctx.log.logger.child('exec');
  const { options } = ctx;
  if (options.database.remote !== undefined)
    logger.warn('--remotedb is read by export and export-history; the node serves its own --datadir', {
      remotedb: options.database.remote.url,
    });
  const db = await openChainDatabase(options.database, ctx.lifecycle, logger);
  await setupChainConfig(db, options.chainSetup, { logger });
  const era = attachEraHistory(db, options.database.era, logger);
  if (era !== undefined) ctx.lifecycle.onStop('era history', () => era.close());
  if (options.chainSetup.l1Network !== undefined) {
    // An L1 preset gives the genesis and the chain rules; past the merge, what to sync to comes from a consensus
    // client over the Engine API (as for geth), so without one only blocks added by `tern-exec import` are served.
    logger.warn('Waiting for a consensus client: an L1 network syncs from peers to the heads it sends', {
      network: options.chainSetup.l1Network,
    });
  }
  // geth uses EITHER the external signer (--signer) OR the local keystore.
  let accounts: AccountManager | AccountBackend;
  if (options.externalSigner !== undefined) {
    const signer = await ExternalSigner.connect(options.externalSigner, { logger: logger.child('accounts') });
    ctx.lifecycle.onStop('external signer', () => signer.close());
    accounts = signer;
  } else {
    accounts = openAccountManager(options.accounts, logger);
    // geth looks for USB wallets and smart cards only beside the keystore, never with an external signer.
    await discoverHardwareWallets(options.hardwareWallets, { logger: logger.child('accounts') });
  }
  return startExecNode(db, options.node, {
    logger,
    lifecycle: ctx.lifecycle,
    accounts,
    observability,
  });
}
