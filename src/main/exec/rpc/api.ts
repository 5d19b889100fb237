// Registers tern-exec's user namespaces (eth, net, web3, debug) on an RPC registry; the listeners pick what they
// offer with --http.api / --ws.api (IPC offers everything, as geth does).
import { arch, platform } from 'node:os';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import { buildInfo } from '../../common/version.js';
import type { ExecRpcBackend } from './backend.js';
import { debugNamespace } from './debug.js';
import { ethNamespace } from './eth.js';
import { netNamespace } from './net.js';
import { web3Namespace } from './web3.js';

/** geth's client version shape, `Name/vVersion/os-arch/runtime`: `tern-exec/v0.1.0-unstable-1a2b3c4d/linux-x64/node20.19.0`. */
export function clientVersion(): string {
  const info = buildInfo();
  const version = info.commit ? `${info.version}-unstable-${info.commit.slice(0, 8)}` : info.version;
  return `tern-exec/v${version}/${platform()}-${arch()}/node${process.versions.node}`;
}

export function registerExecApis(registry: RpcRegistry, backend: ExecRpcBackend): RpcRegistry {
  return registry
    .registerNamespace('eth', ethNamespace(backend))
    .registerNamespace('net', netNamespace({ networkId: backend.networkId, chainId: backend.config.chainId }))
    .registerNamespace('web3', web3Namespace(backend.clientVersion))
    .registerNamespace('debug', debugNamespace(backend));
}
