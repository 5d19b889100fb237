// The `admin` namespace of tern-exec (geth's node/api.go and eth's admin API, the read-only part): admin_nodeInfo,
// admin_datadir and admin_peers. tern-exec runs no devp2p stack (it is driven by a rollup node over the Engine
// API, or seals its own --dev chain), so it has no node key, no enode and no peers: nodeInfo reports empty
// identities and zero ports, peers an empty list, and the eth protocol part is filled from the chain as geth's.
import type { RpcHandler } from '../../common/rpc/registry.js';
import type { ExecRpcBackend } from './backend.js';
import { hex } from './format.js';

export interface AdminInfo {
  /** --datadir; undefined for an in-memory node (admin_datadir answers the empty string, as geth does). */
  datadir: string | undefined;
}

export function adminNamespace(b: ExecRpcBackend, info: AdminInfo): Record<string, RpcHandler> {
  return {
    datadir: () => info.datadir ?? '',
    peers: () => [],
    nodeInfo: () =>
      b.read((view) => {
        const head = view.head();
        const genesis = view.canonicalHash(0n);
        return {
          id: '',
          name: b.clientVersion,
          enode: '',
          enr: '',
          ip: '127.0.0.1',
          ports: { discovery: 0, listener: 0 },
          listenAddr: '',
          protocols: {
            eth: {
              network: Number(b.networkId === 0n ? b.config.chainId : b.networkId),
              // geth prints the stored total difficulty; tern stores none and reports the head's difficulty.
              difficulty: Number(head.header.difficulty),
              genesis: genesis === undefined ? null : hex(genesis),
              config: b.config.raw,
              head: hex(head.hash),
            },
          },
        };
      }),
  };
}
