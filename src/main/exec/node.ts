// The running tern-exec: the chain database (a genesis is required), the user RPC namespaces over it, and the
// listeners the settings ask for — HTTP and WebSocket per --http* / --ws* (one socket when their ports agree),
// IPC at <datadir>/tern-exec.ipc unless --ipcdisable or --ipcpath says otherwise. Everything stops through the
// lifecycle: listeners first, the database last.
import { basename, isAbsolute, join } from 'node:path';
import type { Settings } from '../cli/parse.js';
import type { ProgramContext } from '../cli/run.js';
import { TernError, UsageError } from '../common/errors.js';
import type { Lifecycle } from '../common/lifecycle.js';
import type { Logger } from '../common/logger/index.js';
import type { HttpRpcServer, RpcServerAddress } from '../common/rpc/http.js';
import { IpcRpcServer } from '../common/rpc/ipc.js';
import { createUserRpcServers, type UserRpcOptions } from '../common/rpc/listeners.js';
import { RpcRegistry } from '../common/rpc/registry.js';
import { ChainStore } from './chain/chainStore.js';
import { openChainDatabase } from './cmd/database.js';
import type { Database } from './db/open.js';
import { clientVersion, registerExecApis } from './rpc/api.js';
import { ExecRpcBackend, type ExecRpcOptions } from './rpc/backend.js';

/** geth names its socket geth.ipc; tern-exec's is tern-exec.ipc in the data directory. */
export const IPC_SOCKET_NAME = 'tern-exec.ipc';

export interface ExecNodeOptions {
  /** The HTTP/WS listeners (undefined parts are off). */
  rpc: UserRpcOptions;
  /** The IPC socket path; undefined disables IPC. */
  ipcPath: string | undefined;
  backend: ExecRpcOptions;
}

export interface ExecNode {
  readonly backend: ExecRpcBackend;
  readonly registry: RpcRegistry;
  readonly servers: readonly HttpRpcServer[];
  /** Bound addresses of the HTTP/WS listeners, in the order of `servers`. */
  readonly addresses: readonly RpcServerAddress[];
  readonly ipc: IpcRpcServer | undefined;
}

/** geth's IPCEndpoint: a bare file name lives in the data directory, anything with a directory part is used as is. */
export function ipcEndpoint(datadir: string, ipcPath: string | undefined): string {
  if (ipcPath === undefined || ipcPath === '') return join(datadir, IPC_SOCKET_NAME);
  if (isAbsolute(ipcPath) || basename(ipcPath) !== ipcPath) return ipcPath;
  return join(datadir, ipcPath);
}

const list = (v: string[] | undefined): string[] | undefined => (v && v.length > 0 ? v : undefined);

/** The node's options from tern-exec's settings. */
export function execNodeOptions(settings: Settings): ExecNodeOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  const http = get<boolean>('http')
    ? {
        host: get<string>('http.addr'),
        port: get<number>('http.port'),
        apis: list(get<string[] | undefined>('http.api')),
        corsDomains: get<string[] | undefined>('http.corsdomain'),
        vhosts: get<string[] | undefined>('http.vhosts'),
        prefix: get<string | undefined>('http.rpcprefix'),
      }
    : undefined;
  const ws = get<boolean>('ws')
    ? {
        host: get<string>('ws.addr'),
        port: get<number>('ws.port'),
        apis: list(get<string[] | undefined>('ws.api')),
        origins: get<string[] | undefined>('ws.origins'),
        prefix: get<string | undefined>('ws.rpcprefix'),
      }
    : undefined;
  return {
    rpc: {
      http,
      ws,
      batchRequestLimit: get<number>('rpc.batch-request-limit'),
      batchResponseMaxSize: get<number>('rpc.batch-response-max-size'),
    },
    ipcPath: get<boolean>('ipcdisable')
      ? undefined
      : ipcEndpoint(get<string>('datadir'), get<string | undefined>('ipcpath')),
    backend: {
      networkId: BigInt(get<number>('networkid')),
      gasCap: BigInt(get<number>('rpc.gascap')),
      evmTimeoutMs: get<number>('rpc.evmtimeout'),
      gpo: {
        blocks: get<number>('gpo.blocks'),
        percentile: get<number>('gpo.percentile'),
        maxPrice: BigInt(get<number>('gpo.maxprice')),
        ignorePrice: BigInt(get<number>('gpo.ignoreprice')),
        minSuggestedPriorityFee: BigInt(get<number>('gpo.minsuggestedpriorityfee')),
      },
    },
  };
}

/**
 * Serves the chain in `db`: registers the namespaces and starts the listeners, each with a stop hook on the
 * lifecycle. Throws a UsageError naming `tern-exec init` when the database has no genesis.
 */
export async function startExecNode(
  db: Database,
  opts: ExecNodeOptions,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<ExecNode> {
  const { logger, lifecycle } = deps;
  const store = new ChainStore(db);
  let head: ReturnType<ChainStore['head']>;
  try {
    store.config();
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
  const backend = new ExecRpcBackend(
    db,
    config,
    { clientVersion: clientVersion(), ...opts.backend },
    logger.child('rpc'),
  );
  const registry = registerExecApis(new RpcRegistry(), backend);
  const rpcDeps = { registry, logger };

  const servers = createUserRpcServers(opts.rpc, rpcDeps);
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
  return { backend, registry, servers, addresses, ipc };
}

/** tern-exec without a sub-command: open the database and serve it until stopped. */
export async function runNode(ctx: ProgramContext): Promise<ExecNode> {
  const logger = ctx.log.logger.child('exec');
  const db = await openChainDatabase(ctx.settings, ctx.lifecycle, logger);
  return startExecNode(db, execNodeOptions(ctx.settings), { logger, lifecycle: ctx.lifecycle });
}
