// The opp2p namespace (op-node's p2p/rpc_api.go and rpc_server.go) with op-node's JSON shapes: self, peers,
// peerStats, discoveryTable, block/unblock/list of peers, addresses and subnets, protect/unprotect, connectPeer,
// disconnectPeer. Scores carry their parts so an operator can see why a peer is where it is.
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { checkArity, decodeBool, decodeString, param } from '../../common/rpc/params.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { BlockGossip } from './gossip.js';
import type { P2PHost } from './host.js';
import type { PeerScores } from './peerScores.js';

export interface Opp2pDeps {
  config: RollupConfig;
  host: P2PHost;
  gossip: BlockGossip;
  scores: PeerScores;
  /** Ban length for opp2p_blockPeer (--p2p.ban.duration). */
  banDurationMs: number;
  /** The discv5 routing table as `enr:` records (empty with --p2p.no-discovery). */
  discoveryTable(): string[];
  /** This node's record, when discovery runs. */
  localEnr(): string | undefined;
}

function peerInfo(deps: Opp2pDeps, id: string): Record<string, unknown> {
  const { host } = deps;
  const pid = peerIdFromString(id);
  const conns = host.node.getConnections(pid);
  const topicPeers = new Set(deps.gossip.topicPeers());
  return {
    peerID: id,
    nodeID: '',
    userAgent: '',
    protocolVersion: '',
    ENR: '',
    addresses: conns.map((c) => c.remoteAddr.toString()),
    protocols: null,
    connectedness: conns.length > 0 ? 1 : 0,
    direction: conns[0] === undefined ? 0 : conns[0].direction === 'inbound' ? 1 : 2,
    protected: host.isProtected(id),
    chainID: Number(deps.config.l2ChainId),
    latency: 0,
    gossipBlocks: topicPeers.has(id),
    peerScores: deps.scores.scoresOf(id, deps.gossip.gossipsubScore(id), deps.gossip.gossipsubParts(id)),
  };
}

export function registerOpp2pApi(registry: RpcRegistry, deps: Opp2pDeps): void {
  const { host } = deps;
  const m = <T>(fn: (params: unknown[]) => T | Promise<T>) => fn;
  const peerParam = (params: unknown[]) => {
    const id = param(params, 0, decodeString);
    try {
      return peerIdFromString(id).toString();
    } catch {
      throw serverError(`invalid peer ID: ${id}`);
    }
  };
  registry.registerNamespace('opp2p', {
    self: m((params) => {
      checkArity(params, 0);
      const info = peerInfo(deps, host.peerId);
      return {
        ...info,
        ENR: deps.localEnr() ?? '',
        addresses: host.node.getMultiaddrs().map(String),
        connectedness: 0,
      };
    }),
    peers: m((params) => {
      checkArity(params, 1);
      const connected = param(params, 0, decodeBool);
      const ids = new Set(host.connections().map((c) => c.remotePeer.toString()));
      if (!connected) for (const p of deps.scores.knownPeers()) ids.add(p);
      const peers: Record<string, unknown> = {};
      for (const id of ids) peers[id] = peerInfo(deps, id);
      return {
        totalConnected: new Set(host.connections().map((c) => c.remotePeer.toString())).size,
        peers,
        bannedPeers: host.bannedPeers(),
        bannedIPS: host.blockedAddrs(),
        bannedSubnets: host.blockedSubnets(),
      };
    }),
    peerStats: m((params) => {
      checkArity(params, 0);
      const pubsub = host.node.services.pubsub;
      const [v1, v2, v3, v4] = deps.gossip.topics().map((t) => pubsub.getSubscribers(t).length);
      return {
        connected: new Set(host.connections().map((c) => c.remotePeer.toString())).size,
        table: deps.discoveryTable().length,
        blocksTopic: v1,
        blocksTopicV2: v2,
        blocksTopicV3: v3,
        blocksTopicV4: v4,
        banned: host.bannedPeers().length,
        known: deps.scores.knownPeers().length,
      };
    }),
    discoveryTable: m((params) => {
      checkArity(params, 0);
      return deps.discoveryTable();
    }),
    blockPeer: m(async (params) => {
      checkArity(params, 1);
      const id = peerParam(params);
      if (!(await host.ban(id, Date.now() + deps.banDurationMs)))
        throw serverError(`peer ${id} is static or protected and cannot be blocked`);
      deps.scores.noteBan(id, 'blocked through opp2p_blockPeer');
      return null;
    }),
    unblockPeer: m((params) => {
      checkArity(params, 1);
      host.unban(peerParam(params));
      return null;
    }),
    listBlockedPeers: m((params) => {
      checkArity(params, 0);
      return host.bannedPeers();
    }),
    blockAddr: m((params) => {
      checkArity(params, 1);
      host.blockAddr(param(params, 0, decodeString));
      return null;
    }),
    unblockAddr: m((params) => {
      checkArity(params, 1);
      host.unblockAddr(param(params, 0, decodeString));
      return null;
    }),
    listBlockedAddrs: m((params) => {
      checkArity(params, 0);
      return host.blockedAddrs();
    }),
    blockSubnet: m((params) => {
      checkArity(params, 1);
      try {
        host.blockSubnet(param(params, 0, decodeString));
      } catch (err) {
        throw serverError((err as Error).message);
      }
      return null;
    }),
    unblockSubnet: m((params) => {
      checkArity(params, 1);
      host.unblockSubnet(param(params, 0, decodeString));
      return null;
    }),
    listBlockedSubnets: m((params) => {
      checkArity(params, 0);
      return host.blockedSubnets();
    }),
    protectPeer: m((params) => {
      checkArity(params, 1);
      host.protect(peerParam(params));
      return null;
    }),
    unprotectPeer: m((params) => {
      checkArity(params, 1);
      host.unprotect(peerParam(params));
      return null;
    }),
    connectPeer: m(async (params) => {
      checkArity(params, 1);
      const addr = param(params, 0, decodeString);
      try {
        await host.node.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) });
      } catch (err) {
        throw serverError(`failed to connect to ${addr}: ${(err as Error).message}`);
      }
      return null;
    }),
    disconnectPeer: m(async (params) => {
      checkArity(params, 1, 1);
      await host.node.hangUp(peerIdFromString(peerParam(params)));
      return null;
    }),
  });
}
