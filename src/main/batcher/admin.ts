// op-batcher's admin API (--rpc.enable-admin): admin_startBatcher, admin_stopBatcher, plus admin_batcherActive
// to read the state back (tern's addition, named after tern-node's admin_sequencerActive).
import type { Logger } from '../common/logger/index.js';
import { HttpRpcServer, type RpcServerAddress } from '../common/rpc/http.js';
import { RpcRegistry } from '../common/rpc/registry.js';
import type { BatchSubmitter } from './driver.js';

export interface AdminRpcOptions {
  host: string;
  port: number;
}

export function adminRegistry(driver: BatchSubmitter): RpcRegistry {
  return new RpcRegistry().registerNamespace('admin', {
    startBatcher: () => {
      driver.startBatcher();
      return null;
    },
    stopBatcher: () => {
      driver.stopBatcher();
      return null;
    },
    batcherActive: () => driver.isRunning,
  });
}

/** Starts the admin RPC listener; resolves with its address. */
export async function startAdminRpc(
  opts: AdminRpcOptions,
  driver: BatchSubmitter,
  deps: { logger: Logger; signal: AbortSignal },
): Promise<{ server: HttpRpcServer; address: RpcServerAddress }> {
  const server = new HttpRpcServer(
    { host: opts.host, port: opts.port, http: { apis: ['admin'], vhosts: ['*'] }, name: 'admin' },
    { registry: adminRegistry(driver), logger: deps.logger, signal: deps.signal },
  );
  return { server, address: await server.start() };
}
