// The `admin` namespace of tern-exec (geth's node/api.go and eth's admin API): admin_nodeInfo, admin_datadir,
// admin_peers and the peer management calls (addPeer, removePeer, addTrustedPeer, removeTrustedPeer) over the
// execution-layer network (../p2p). With the network off (--maxpeers 0, or a node built without it) nodeInfo
// reports empty identities and zero ports, peers an empty list, and the management calls answer false as geth
// does when its server is not running. The eth protocol part is filled from the chain as geth's.
import { checkArity } from '../../common/rpc/params.js';
import type { RpcHandler } from '../../common/rpc/registry.js';
import { invalidParams } from '../../protocol/jsonrpc/errors.js';
import type { ExecRpcBackend } from './backend.js';
import { hex } from './format.js';

/** What the admin namespace needs of the network (../p2p/server.ts's P2pServer). */
export interface NetworkAdmin {
  nodeInfo(): Record<string, unknown>;
  peersInfo(): unknown[];
  addPeer(url: string): boolean;
  removePeer(url: string): boolean;
  addTrustedPeer(url: string): boolean;
  removeTrustedPeer(url: string): boolean;
  peerCount(): number;
}

export interface AdminInfo {
  /** --datadir; undefined for an in-memory node (admin_datadir answers the empty string, as geth does). */
  datadir: string | undefined;
  network?: NetworkAdmin | undefined;
}

function enodeParam(params: readonly unknown[]): string {
  checkArity(params, 1);
  const url = params[0];
  if (typeof url !== 'string') throw invalidParams('invalid argument 0: expected an enode URL string');
  return url;
}

function manage(network: NetworkAdmin | undefined, op: (n: NetworkAdmin, url: string) => boolean): RpcHandler {
  return (params) => {
    const url = enodeParam(params);
    if (network === undefined) return false;
    try {
      return op(network, url);
    } catch (err) {
      // geth: "invalid enode: ..."
      throw invalidParams(`invalid enode: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

export function adminNamespace(b: ExecRpcBackend, info: AdminInfo): Record<string, RpcHandler> {
  const net = info.network;
  return {
    datadir: () => info.datadir ?? '',
    peers: () => net?.peersInfo() ?? [],
    addPeer: manage(net, (n, url) => n.addPeer(url)),
    removePeer: manage(net, (n, url) => n.removePeer(url)),
    addTrustedPeer: manage(net, (n, url) => n.addTrustedPeer(url)),
    removeTrustedPeer: manage(net, (n, url) => n.removeTrustedPeer(url)),
    nodeInfo: () =>
      b.read((view) => {
        const head = view.head();
        const genesis = view.canonicalHash(0n);
        const identity = net?.nodeInfo() ?? {
          id: '',
          name: b.clientVersion,
          enode: '',
          enr: '',
          ip: '127.0.0.1',
          ports: { discovery: 0, listener: 0 },
          listenAddr: '',
        };
        return {
          ...identity,
          protocols: {
            eth: {
              network: Number(b.networkId === 0n ? b.config.chainId : b.networkId),
              // geth prints the stored total difficulty; tern stores none and reports the head's difficulty.
              difficulty: Number(head.header.difficulty),
              genesis: genesis === undefined ? null : hex(genesis),
              config: b.config.raw,
              head: hex(head.hash),
            },
            ...(net !== undefined ? { snap: {} } : {}),
          },
        };
      }),
  };
}
