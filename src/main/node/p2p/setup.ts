// tern-node's P2P stack from its options (cli/nodeOptions.ts reads the --p2p.* flags): identity, host, block
// gossip with validation, request-response server and client, the unsafe-block sync into the engine controller,
// peer scores and bans, and the opp2p RPC namespace. driver/replica.ts calls setupP2P() once the engine controller
// and driver exist; the sequencer publishes through the returned `publish`.
import { lookup } from 'node:dns/promises';
import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import { UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import type { P2PMetrics } from '../../common/metrics/opNode.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { Driver } from '../driver/driver.js';
import type { EngineController } from '../engine/engineController.js';
import type { Engine } from '../engine/interface.js';
import type { BlockVersion } from '../signer/gossipPayload.js';
import { BlockValidator } from './blockValidator.js';
import { OP_NODE_DEFAULT_BOOTNODES } from './defaultBootnodes.js';
import { Discovery } from './discovery.js';
import { BlockGossip } from './gossip.js';
import { P2PHost } from './host.js';
import { loadOrCreateIdentityKey } from './identityKey.js';
import { startNodeNat } from './natTraversal.js';
import { PeerManager } from './peerManager.js';
import { PeerScores } from './peerScores.js';
import { PayloadServer, RESULT_UNKNOWN, requestPayload } from './reqResp.js';
import { registerOpp2pApi } from './rpc.js';
import { gossipScoring } from './scoreParams.js';
import { blocksTopic } from './topics.js';
import { UnsafeSignerWatcher } from './unsafeSigner.js';
import { UnsafeSync } from './unsafeSync.js';
import { createGossipValidationPool, GOSSIP_OFFLOAD_MIN_BYTES, pooledBlockCheck } from './validationPool.js';

/** The --p2p.* flags (and --l1.runtime-config-reload-interval, how often the unsafe block signer is re-read). */
export interface P2POptions {
  disabled: boolean;
  privPath: string;
  noDiscovery: boolean;
  nat: boolean;
  /** A directory, or `memory` (or empty) for none. */
  peerstorePath: string;
  listenIp: string;
  listenTcp: number;
  /** 0: the same port as TCP. */
  listenUdp: number;
  advertiseIp: string | undefined;
  advertiseTcp: number;
  advertiseUdp: number;
  /** --p2p.bootnodes; empty: op-node's defaults on a bundled network (--network), none otherwise. */
  bootnodes: string[];
  /** The bundled network the node runs (--network), if any. */
  network: string | undefined;
  /** A directory, or `memory` (or empty) for none. */
  discoveryPath: string;
  staticPeers: string[];
  netrestrict: string[];
  peersLo: number;
  peersHi: number;
  peersGraceMs: number;
  scoring: 'none' | 'light';
  banPeers: boolean;
  banThreshold: number;
  banDurationMs: number;
  signerReloadIntervalMs: number;
  gossipTimestampThresholdMs: number;
  syncReqResp: boolean;
  syncOnlyReqToStatic: boolean;
}

export interface P2PContext {
  options: P2POptions;
  config: RollupConfig;
  logger: Logger;
  lifecycle: Lifecycle;
  /** A JSON-RPC call to L1 (the unsafe block signer is read from L1 storage). */
  l1Call(method: string, params: unknown[]): Promise<unknown>;
  engine: Engine;
  controller: EngineController;
  driver: Driver;
  registry: RpcRegistry;
  /** op-node's P2P metrics (common/metrics/opNode.ts), when --metrics.enabled. */
  metrics?: P2PMetrics | undefined;
}

export interface P2P {
  host: P2PHost;
  /** Gossips a signed block message (signature ‖ payload) on its version's topic, queued. */
  publish(version: BlockVersion, message: Uint8Array): void;
  start(): Promise<void>;
}

const PERSIST_OFF = 'memory';

export async function setupP2P(ctx: P2PContext): Promise<P2P | undefined> {
  const { options, config, logger, lifecycle } = ctx;
  const log = logger.child('p2p');
  if (options.disabled) {
    log.info('P2P disabled (--p2p.disable)');
    return undefined;
  }
  const keyPath = options.privPath;
  const identity = loadOrCreateIdentityKey(keyPath);
  log.info(identity.created ? 'Created P2P identity key' : 'Loaded P2P identity key', { path: keyPath });

  if (options.peersLo === 0 || options.peersHi === 0 || options.peersLo > options.peersHi) {
    throw new UsageError(
      `peers lo/hi tides are invalid: ${options.peersLo}, ${options.peersHi} (both above 0, lo not above hi)`,
    );
  }
  const peerstore = options.peerstorePath;
  const peerstorePath = peerstore === PERSIST_OFF || peerstore === '' ? undefined : peerstore;
  if (peerstorePath !== undefined) mkdirSync(peerstorePath, { recursive: true });

  // --p2p.advertise.ip may be a host name: op-node resolves it once at startup.
  const advertiseIp = await resolveAdvertiseIp(options.advertiseIp);
  let appScore: (peer: string) => number = () => 0;
  const host = await P2PHost.create(
    {
      privateKey: identity.key,
      listenIp: options.listenIp,
      listenTcp: options.listenTcp,
      advertiseIp,
      advertiseTcp: options.advertiseTcp,
      staticPeers: options.staticPeers,
      netrestrict: options.netrestrict,
      peersHi: options.peersHi,
      peerstorePath,
      // The application score comes from PeerScores, created once the host exists.
      scoring: gossipScoring(options.scoring, config.blockTime, [blocksTopic(config.l2ChainId, 1)], (p) => appScore(p)),
    },
    {
      logger,
      onDial: ctx.metrics?.dial,
      onAccept: ctx.metrics?.accept,
      onPeerUnban: ctx.metrics?.peerUnban,
      onIpUnban: ctx.metrics?.ipUnban,
    },
  );
  lifecycle.onStop('p2p host', () => host.stop());

  const banDurationMs = options.banDurationMs;
  const scores = new PeerScores(
    {
      banEnabled: options.banPeers,
      banThreshold: options.banThreshold,
      banDurationMs,
    },
    { isStatic: (p) => host.isStatic(p), ban: (p, until) => host.ban(p, until) },
  );

  appScore = (p) => scores.score(p);

  const signer = new UnsafeSignerWatcher(
    config,
    { intervalMs: options.signerReloadIntervalMs },
    { l1Call: ctx.l1Call, logger, signal: lifecycle.signal },
  );
  lifecycle.onStop('unsafe signer watcher', () => signer.stop());

  // Large blocks validate on the pool (validationPool.ts): their checks cost the coordinator tens of ms each.
  const validationPool = createGossipValidationPool();
  lifecycle.onStop('gossip validation pool', () => validationPool.close());
  const validator = new BlockValidator(
    config,
    {
      timestampThresholdMs: options.gossipTimestampThresholdMs,
      offload: pooledBlockCheck(validationPool),
      offloadMinBytes: GOSSIP_OFFLOAD_MIN_BYTES,
    },
    { signer: () => signer.address },
  );

  const reqResp = options.syncReqResp;
  const onlyStatic = options.syncOnlyReqToStatic;
  const controller = ctx.controller;
  const unsafeHead = () => (controller.initialized ? controller.heads.unsafe : undefined);
  const sync = new UnsafeSync({
    logger,
    unsafeHead,
    engineSyncing: () => controller.engineSyncing,
    insert: async (b) => {
      await ctx.driver.runExclusive(async () => {
        if (!controller.initialized) throw new Error('engine not started');
        await controller.insertUnsafePayload(b.payload, b.parentBeaconBlockRoot);
      });
    },
    fetch: reqResp
      ? async (num, exclude) => {
          const connected = [...new Set(host.connections().map((c) => c.remotePeer.toString()))];
          const peers = connected.filter((p) => !exclude.has(p) && (!onlyStatic || host.isStatic(p)));
          // Peers with the best app score first.
          peers.sort((a, b) => scores.score(b) - scores.score(a));
          for (const peer of peers) {
            const started = performance.now();
            const record = (code: number) =>
              ctx.metrics?.payloadByNumber('client', num, code, (performance.now() - started) / 1000);
            try {
              const r = await requestPayload(host.node, config, peer, num);
              record(r.ok ? 0 : r.code);
              if (r.ok) {
                scores.reqRespResult(peer, true);
                return { block: { payload: r.payload, parentBeaconBlockRoot: r.parentBeaconBlockRoot }, peer };
              }
              // "not found" is an honest answer: no penalty, ask the next peer.
            } catch (err) {
              record(RESULT_UNKNOWN);
              scores.reqRespResult(peer, false, (err as Error).message);
            }
            exclude.add(peer);
          }
          return undefined;
        }
      : undefined,
  });

  const gossip = new BlockGossip(
    config,
    host.node,
    validator,
    {
      onBlock: (b) => sync.add(b),
      onValidation: (peer, outcome) => {
        // go-libp2p-pubsub traces an ignored message as a rejection too (reason "validation ignored").
        ctx.metrics?.gossipEvent(outcome.result === 'accept' ? 'DELIVER_MESSAGE' : 'REJECT_MESSAGE');
        scores.gossipResult(peer, outcome.result, outcome.result === 'accept' ? undefined : outcome.reason);
      },
    },
    { logger },
  );
  gossip.attach();

  if (reqResp) {
    const server = new PayloadServer(
      config,
      { unsafeHead: () => unsafeHead()?.number, payloadByNumber: (n) => ctx.engine.payloadByNumber(n) },
      {
        logger,
        onServed: ctx.metrics && ((num, code, seconds) => ctx.metrics?.payloadByNumber('server', num, code, seconds)),
      },
    );
    await server.register(host.node);
  }
  const peers = new PeerManager(
    { lo: options.peersLo, hi: options.peersHi, graceMs: options.peersGraceMs },
    {
      host,
      logger,
      // With light scoring the gossipsub score already holds the application score (weight 1).
      score: (p) => (options.scoring === 'light' ? gossip.gossipsubScore(p) : scores.score(p)),
    },
  );
  lifecycle.onStop('peer manager', () => peers.stop());
  let discovery: Discovery | undefined;
  const startDiscovery = async (): Promise<void> => {
    if (options.noDiscovery) return;
    const tcpPort = host.tcpPort() ?? options.listenTcp;
    const bootnodes =
      options.bootnodes.length > 0 ? options.bootnodes : options.network !== undefined ? OP_NODE_DEFAULT_BOOTNODES : [];
    const discoveryPath = options.discoveryPath;
    discovery = Discovery.create(
      {
        privateKey: identity.key,
        chainId: config.l2ChainId,
        listenIp: options.listenIp,
        listenUdp: options.listenUdp || tcpPort,
        advertiseIp,
        advertiseUdp: options.advertiseUdp,
        advertiseTcp: options.advertiseTcp || tcpPort,
        bootnodes,
        dbPath: discoveryPath === PERSIST_OFF || discoveryPath === '' ? undefined : discoveryPath,
      },
      { logger, onPeer: (p) => peers.addCandidate(p.peerId, p.addr), wantsPeers: () => peers.wantsPeers() },
    );
    lifecycle.onStop('discv5', () => discovery?.stop());
    await discovery.start();
  };
  registerOpp2pApi(ctx.registry, {
    config,
    host,
    gossip,
    scores,
    banDurationMs,
    discoveryTable: () => discovery?.table().map((e) => e.encodeTxt()) ?? [],
    localEnr: () => discovery?.enr,
  });

  let poll: NodeJS.Timeout | undefined;
  lifecycle.onStop('unsafe sync', () => clearInterval(poll));
  const metrics = ctx.metrics;
  let sampler: NodeJS.Timeout | undefined;
  lifecycle.onStop('p2p metrics', () => clearInterval(sampler));
  const counts = (): void => {
    metrics?.setPeerCount(host.connectedPeers().length);
    metrics?.setStreamCount(host.connections().reduce((n, c) => n + c.streams.length, 0));
  };
  const sample = (): void => {
    if (metrics === undefined) return;
    counts();
    metrics.setQuarantine(sync.pendingCount);
    metrics.setBandwidth(host.bandwidth.totalIn, host.bandwidth.totalOut);
    // op-node's SetPeerScores: each connected peer's score parts into the peer_scores histogram.
    for (const p of host.connectedPeers())
      metrics.observePeerScores(peerScoreParts(scores.scoresOf(p, gossip.gossipsubScore(p), gossip.gossipsubParts(p))));
  };
  if (metrics !== undefined) {
    const pubsub = host.node.services.pubsub;
    pubsub.addEventListener('gossipsub:graft', () => metrics.gossipEvent('GRAFT'));
    pubsub.addEventListener('gossipsub:prune', () => metrics.gossipEvent('PRUNE'));
    // Peers joining and leaving, counted at the libp2p level (go-libp2p-pubsub traces them per pubsub peer).
    host.node.addEventListener('peer:connect', () => metrics.gossipEvent('ADD_PEER'));
    host.node.addEventListener('peer:disconnect', () => metrics.gossipEvent('REMOVE_PEER'));
    host.node.addEventListener('connection:open', counts);
    host.node.addEventListener('connection:close', counts);
  }
  return {
    host,
    publish: (version, message) => {
      metrics?.gossipEvent('PUBLISH_MESSAGE');
      gossip.publish(version, message);
    },
    start: async () => {
      // In the background: an unreachable L1 must not hold up startup (blocks are ignored until it answers).
      void signer.start();
      await host.start();
      gossip.subscribe();
      for (const _ of gossip.topics()) metrics?.gossipEvent('JOIN');
      if (metrics !== undefined) {
        sampler = setInterval(sample, 10_000);
        sampler.unref();
      }
      await startDiscovery();
      if (options.nat) {
        const tcpPort = host.tcpPort() ?? options.listenTcp;
        const mapping = startNodeNat(
          {
            listenIp: options.listenIp,
            tcpPort,
            udpPort: options.noDiscovery ? undefined : options.listenUdp || tcpPort,
            advertiseIp,
          },
          { host, discovery, logger: log },
        );
        if (mapping !== undefined) lifecycle.onStop('NAT port mappings', () => mapping.stop());
      }
      peers.start();
      // Derivation also moves the unsafe head; pending blocks that now attach are inserted.
      poll = setInterval(() => sync.poke(), 1000);
      poll.unref();
    },
  };
}

/** The parts op-node's SetPeerScores observes, from PeerScores.scoresOf's op-node shape. */
function peerScoreParts(s: Record<string, unknown>): Record<string, number> {
  const gossip = s.gossip as {
    total: number;
    IPColocationFactor: number;
    behavioralPenalty: number;
    blocks: {
      timeInMesh: number;
      firstMessageDeliveries: number;
      meshMessageDeliveries: number;
      invalidMessageDeliveries: number;
    };
  };
  const reqResp = s.reqResp as { validResponses: number; errorResponses: number; rejectedPayloads: number };
  return {
    total: gossip.total,
    ipColocation: gossip.IPColocationFactor,
    behavioralPenalty: gossip.behavioralPenalty,
    blocksFirstMessage: gossip.blocks.firstMessageDeliveries,
    blocksTimeInMesh: gossip.blocks.timeInMesh,
    blocksMessageDeliveries: gossip.blocks.meshMessageDeliveries,
    blocksInvalidMessageDeliveries: gossip.blocks.invalidMessageDeliveries,
    reqRespValidResponses: reqResp.validResponses,
    reqRespErrorResponses: reqResp.errorResponses,
    reqRespRejectedPayloads: reqResp.rejectedPayloads,
  };
}

async function resolveAdvertiseIp(value: string | undefined): Promise<string | undefined> {
  if (value === undefined || value === '' || isIP(value) !== 0) return value || undefined;
  try {
    return (await lookup(value)).address;
  } catch (err) {
    throw new UsageError(`--p2p.advertise.ip: cannot resolve "${value}": ${(err as Error).message}`);
  }
}
