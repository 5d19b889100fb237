// The command lines of a rollup node's two programs on the devnet: tern-exec as its L2 engine and tern-node
// following layer 1 (sequencing on the sequencer). With --engine in-process both go to one tern-pair process,
// `tern-pair <tern-node flags> -- <tern-exec flags>`, and tern-node gets no --l2 / --l2.jwt-secret (the engine is
// in that process); tern-exec still serves its authenticated endpoint with the node's JWT secret.
import { accountFor } from './accounts.js';
import { builtArgs, type Capabilities } from './capabilities.js';
import type { EngineP2P, NodeP2P } from './p2p.js';

/** What the devnet knows of one rollup node when it starts it (a subset of launcher.ts's NodeInfo). */
export interface RoleNode {
  role: 'sequencer' | 'replica';
  execRpc: string;
  engine: string;
  nodeRpc: string | null;
  metrics: string | null;
  jwtSecret: string;
  /** null: P2P is not built, the node runs with --p2p.disable. */
  p2p?: NodeP2P | null | undefined;
  /** The engine's devp2p identity and port; null: the engine's network is not built (a free port, no peers). */
  elP2P?: EngineP2P | null | undefined;
}

const port = (u: string) => new URL(u).port;

/** tern-exec serving `datadir` as the node's L2 engine; `enodes`: every engine's, the sequencer's first. */
export function engineArgs(
  n: RoleNode,
  datadir: string,
  host: string,
  caps: Capabilities,
  enodes: readonly string[] = [],
): string[] {
  const el = n.elP2P;
  // Replicas dial the sequencer's engine (the first enode); the sequencer dials nobody, so two engines never dial
  // each other at once (both such connections would be dropped as duplicates). Discovery finds the rest.
  const sequencerEnode = enodes[0];
  const others = el && sequencerEnode !== undefined && sequencerEnode !== el.enode ? [sequencerEnode] : [];
  const network: [string, string?][] = el
    ? [
        ['port', String(el.port)],
        ['nodekey', el.keyFile],
        ['nat', `extip:${host}`],
        ...(others.length > 0 ? ([['bootnodes', others.join(',')]] as [string, string][]) : []),
      ]
    : // Each engine's devp2p listener on a free port (several engines share the host), kept off the router: a
      // local devnet has nothing to map there (--nat any would search for a gateway and map it).
      [
        ['port', '0'],
        ['nat', 'none'],
      ];
  return [
    `--datadir=${datadir}`,
    '--http',
    `--http.addr=${host}`,
    `--http.port=${port(n.execRpc)}`,
    '--http.api=eth,net,web3,txpool,debug',
    `--authrpc.addr=${host}`,
    `--authrpc.port=${port(n.engine)}`,
    `--authrpc.jwtsecret=${n.jwtSecret}`,
    ...builtArgs(caps, 'exec', [['ipcdisable'], ...network]),
  ];
}

export interface RollupNodeContext {
  l1Rpc: string;
  beacon: string;
  rollupConfig: string;
  l1Genesis: string;
  host: string;
  l1BlockTime: number;
  /** Layer 1 is anvil: the nodes run with --l1.trustrpc. */
  anvil: boolean;
  /** In-process: no --l2 and --l2.jwt-secret (tern-pair refuses them). */
  inProcess: boolean;
  caps: Capabilities;
  /** Multiaddrs of every rollup node's P2P host (a node leaves its own out of its --p2p.static). */
  p2pPeers?: readonly string[] | undefined;
  /** The DA server's URL (tern-devnet --da altda). */
  daServer?: string | undefined;
  /** Where replicas read layer 1 instead (the fault proxies of the reliability suite); the sequencer never does. */
  replicaL1?: { l1Rpc: string; beacon: string } | undefined;
}

/** tern-node for `n` (its RPC port and metrics port set), over HTTP to its engine unless in-process. */
export function rollupNodeArgs(n: RoleNode, c: RollupNodeContext): string[] {
  const role =
    n.role === 'sequencer'
      ? [
          '--sequencer.enabled',
          `--p2p.sequencer.key=${accountFor('sequencer').privateKey.slice(2)}`,
          // The admin namespace (start/stop the sequencer) for tools and tests on this local network.
          ...builtArgs(c.caps, 'node', [['rpc.enable-admin']]),
        ]
      : [];
  const l1 = n.role === 'replica' && c.replicaL1 !== undefined ? c.replicaL1 : c;
  return [
    `--l1=${l1.l1Rpc}`,
    `--l1.beacon=${l1.beacon}`,
    ...(c.inProcess ? [] : [`--l2=${n.engine}`, `--l2.jwt-secret=${n.jwtSecret}`]),
    `--rollup.config=${c.rollupConfig}`,
    `--rollup.l1-chain-config=${c.l1Genesis}`,
    `--rpc.port=${port(n.nodeRpc as string)}`,
    // anvil's blocks with blob transactions do not verify (see the note launcher.ts prints).
    ...(c.anvil ? ['--l1.trustrpc'] : []),
    ...(c.daServer === undefined ? [] : ['--altda.enabled=true', `--altda.da-server=${c.daServer}`]),
    ...role,
    ...p2pArgs(n, c),
    ...builtArgs(c.caps, 'node', [
      ['rpc.addr', c.host],
      ['l1.http-poll-interval', `${Math.max(1, Math.floor(c.l1BlockTime / 2))}s`],
      // Safe/finalized layer-1 blocks (the dev chain finalizes every 32 blocks, anvil's finalized is the head
      // minus 64): op-node's 384 s is too slow here.
      ['l1.epoch-poll-interval', `${2 * c.l1BlockTime}s`],
    ]),
    // Metrics when this build has them (launcher.ts sets n.metrics to null otherwise).
    ...(n.metrics === null
      ? []
      : builtArgs(c.caps, 'node', [['metrics.enabled'], ['metrics.addr', c.host], ['metrics.port', port(n.metrics)]])),
  ];
}

/**
 * P2P between the devnet's rollup nodes on loopback: each listens on its own port with its key file and dials
 * every other node as a static peer (no discovery on a local network). Without P2P in the build: --p2p.disable.
 */
function p2pArgs(n: RoleNode, c: RollupNodeContext): string[] {
  const p = n.p2p;
  if (p === undefined || p === null) return builtArgs(c.caps, 'node', [['p2p.disable']]);
  const others = (c.p2pPeers ?? []).filter((m) => m !== p.multiaddr);
  return [
    `--p2p.priv.path=${p.keyFile}`,
    `--p2p.listen.ip=${p.host}`,
    `--p2p.listen.tcp=${p.port}`,
    '--p2p.peerstore.path=memory',
    '--p2p.no-discovery',
    ...(others.length > 0 ? [`--p2p.static=${others.join(',')}`] : []),
  ];
}
