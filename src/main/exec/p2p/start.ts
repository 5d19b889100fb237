// Starting the execution-layer network of a running node: the node key, the local chain as the eth sessions
// see it (STATUS from the head, the fork id over the stored chain config, serving from the database and the
// pool), the server, transaction announcements, and --nat (stun: asks a STUN server for the external IP,
// upnp/pmp/any map the ports on the router in the background).

import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { lanIpv4, startPortMapping } from '../../common/natMapping.js';
import { fromHex } from '../../primitives/bytes.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { Database } from '../db/open.js';
import type { SnapServer } from '../sync/peer.js';
import type { TernTxPool } from '../txpool/pool.js';
import { databaseServeSource } from './ethServe.js';
import { ETH_VERSION } from './ethWire.js';
import { createForkFilter, forkIdAt, gatherForks } from './forkId.js';
import { loadNodeKey } from './nodeKey.js';
import { natPlan, type P2pNodeOptions } from './options.js';
import { type LocalChain, P2pServer } from './server.js';
import { stunMappedAddress } from './stun.js';

export interface P2pStartDeps {
  db: Database;
  store: ChainStore;
  pool: TernTxPool;
  networkId: bigint;
  datadir: string | undefined;
  clientVersion: string;
  snapServer?: SnapServer | undefined;
  logger: Logger;
  lifecycle: Lifecycle;
}

/** geth's node name: Geth/<identity>/v1.x/...; tern-exec/<identity>/v.../... */
export function clientIdWithIdentity(clientVersion: string, identity: string | undefined): string {
  if (identity === undefined || identity === '') return clientVersion;
  const slash = clientVersion.indexOf('/');
  return slash < 0
    ? `${clientVersion}/${identity}`
    : `${clientVersion.slice(0, slash)}/${identity}${clientVersion.slice(slash)}`;
}

export function localChain(
  deps: Pick<P2pStartDeps, 'db' | 'store' | 'pool' | 'networkId'>,
  txGossip: boolean,
): LocalChain {
  const { store, pool } = deps;
  const config = store.config();
  const genesisHash = store.genesisHash() ?? store.canonicalHash(0n) ?? new Uint8Array(32);
  const genesis = store.headerByNumber(0n);
  const schedule = gatherForks(config, genesis?.timestamp ?? 0n);
  const networkId = deps.networkId === 0n ? config.chainId : deps.networkId;
  const head = () => store.head();
  const forkId = () => {
    const h = head();
    return forkIdAt(schedule, genesisHash, h.number, h.header.timestamp);
  };
  return {
    status: () => ({
      version: ETH_VERSION,
      networkId,
      td: 0n,
      head: head().hash,
      genesis: genesisHash,
      forkId: forkId(),
    }),
    forkId,
    checkForkId: createForkFilter(schedule, genesisHash, () => ({
      number: head().number,
      time: head().header.timestamp,
    })),
    serve: databaseServeSource(deps.db, pool),
    addRemoteTx: (raw) => {
      if (txGossip) void pool.add(raw);
    },
    knownTx: (hash) => pool.get(hash) !== undefined,
  };
}

/** Starts the network when --maxpeers allows it; undefined when it is off. */
export async function startP2p(opts: P2pNodeOptions, deps: P2pStartDeps): Promise<P2pServer | undefined> {
  const { logger } = deps;
  if (!opts.enabled) {
    logger.info('Execution-layer P2P off (--maxpeers 0): no listener, no discovery, no peers');
    return undefined;
  }
  const key = loadNodeKey({ hex: opts.nodeKeyHex, file: opts.nodeKeyFile, datadir: deps.datadir });
  if (key.source === 'generated') logger.info('Generated a new node key', { path: key.path });
  const nat = natPlan(opts.nat);
  let externalIp = nat.externalIp;
  if (nat.stun !== undefined) {
    try {
      externalIp = (await stunMappedAddress(nat.stun.host, nat.stun.port)).ip;
      logger.info('External IP from STUN', { ip: externalIp, server: `${nat.stun.host}:${nat.stun.port}` });
    } catch (err) {
      logger.warn('STUN query failed: advertising the local address', { nat: opts.nat, err: (err as Error).message });
    }
  }
  if (nat.unsupported !== undefined) {
    logger.warn('Unknown --nat mechanism: advertising the local address; the node may be unreachable from outside', {
      nat: nat.unsupported,
    });
  }
  if (opts.dns.length > 0 && !opts.discv4) {
    logger.warn('DNS discovery (--discovery.dns) runs with discovery v4 here; it is off', { trees: opts.dns });
  }
  const server = new P2pServer(
    {
      port: opts.port,
      discoveryPort: opts.discoveryPort,
      listenHost: '0.0.0.0',
      discv4: opts.discv4,
      discv5: opts.discv5,
      bootnodes: opts.bootnodes,
      dnsNetworks: opts.dns,
      maxPeers: opts.maxPeers,
      maxPendingPeers: opts.maxPendingPeers,
      externalIp,
      netRestrict: opts.netRestrict,
      clientId: clientIdWithIdentity(deps.clientVersion, opts.identity),
      requiredBlocks: new Map(opts.requiredBlocks.map(([n, h]) => [n, fromHex(h)])),
      txGossip: opts.txGossip,
    },
    key,
    localChain(deps, opts.txGossip),
    deps.snapServer,
    logger,
  );
  deps.lifecycle.onStop('P2P', () => server.stop());
  try {
    await server.start();
  } catch (err) {
    // A taken port must not take the RPC and the Engine API down with it: said loudly, run without peers.
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    logger.error('P2P listener could not start: running without peers', { port: opts.port, err: code });
    await server.stop();
    return undefined;
  }
  if (nat.gateway !== undefined) {
    // In the background (geth's port-mapping loop): the node serves at once; a mapping updates what it advertises.
    const localIp = lanIpv4();
    const quiet = nat.gateway.kind === 'any';
    if (localIp === undefined) {
      const say = quiet ? logger.debug.bind(logger) : logger.warn.bind(logger);
      say('No LAN address to map on a NAT gateway: advertising the local address', { nat: opts.nat });
    } else {
      const mapping = startPortMapping({
        plan: nat.gateway,
        description: 'tern-exec',
        localIp,
        tcpPort: server.tcpPort,
        udpPort: server.udpPort || undefined,
        logger,
        quiet,
        onMapped: (m) => server.setNatMapping(m.externalIp, m.tcp, m.udp),
      });
      deps.lifecycle.onStop('NAT port mappings', () => mapping.stop());
    }
  }
  if (opts.txGossip) {
    const batch: Uint8Array[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      const hashes = batch.splice(0);
      const types: number[] = [];
      const sizes: number[] = [];
      const known: Uint8Array[] = [];
      for (const h of hashes) {
        const t = deps.pool.get(h);
        if (t === undefined) continue;
        types.push(t.tx.type);
        sizes.push(deps.pool.networkForm(t).length);
        known.push(h);
      }
      server.announceTransactions(types, sizes, known);
    };
    const off = deps.pool.subscribe((hash) => {
      if (batch.length < 4096) batch.push(hash);
      timer ??= setTimeout(flush, 100);
    });
    deps.lifecycle.onStop('transaction announcements', () => {
      off();
      clearTimeout(timer);
    });
  } else
    logger.info('Transaction gossip off (--rollup.disabletxpoolgossip): no transactions taken from or sent to peers');
  logger.info('Started P2P networking', {
    enode: server.enode(),
    tcp: server.tcpPort,
    discv4: opts.discv4 ? server.udpPort : 'off',
    discv5: opts.discv5 ? server.udpPort : 'off',
    maxpeers: opts.maxPeers,
  });
  return server;
}
