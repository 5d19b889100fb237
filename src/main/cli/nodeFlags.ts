// The complete flag table of tern-node (the op-node role), from the seed "Rollup Consensus Node: Command-Line
// Configuration Interface" (flags of op-node v1.10.2). Every flag of the seed appears here exactly once; parsing,
// validation, --help, env vars (TERN_NODE_*) and the README reference all derive from this table.
//
// Defaults are the parsed values the seed states (durations in milliseconds). Where the seed's default column is a
// phrase rather than a value, `defaultNote` carries its exact words. `implemented: false` marks flags whose feature
// is not built yet: they parse and validate, and a non-default value stops the program with "not supported yet".

import { nodeRpcDefaults } from '../common/rpc/listeners.js';
import { conductorClientDefaults } from '../node/conductor/client.js';
import { driverDefaults } from '../node/driver/driver.js';
import { httpEngineDefaults } from '../node/engine/http.js';
import { beaconClientDefaults } from '../node/l1/beacon.js';
import { l1ClientDefaults } from '../node/l1/client.js';
import { l1HeadsDefaults } from '../node/l1/heads.js';
import { sequencerDefaults } from '../node/sequencer/config.js';
import { remoteSignerDefaults } from '../node/signer/remote.js';
import { altDaFlags } from './altDaFlags.js';
import type { FlagSpec, FlagValue, ProgramSpec } from './flag.js';
import { LOGGING_FLAGS } from './logFlags.js';
import { NETWORK_NAMES } from './networks.js';

const L1L2 = 'Layer-1 and layer-2 connection';
const NETWORK = 'Network selection and rollup';
const FORKS = 'Fork overrides';
const RPC = 'RPC, metrics and profiling';
const P2P = 'Peer-to-peer';
const SEQUENCER = 'Sequencer, verifier and conductor';
const SIGNER = 'Signer';
const ALTDA = 'Alternative data availability (experimental)';
const INTEROP = 'Interop (highly experimental)';
const MISC = 'Miscellaneous';

const HTTP = ['http', 'https'] as const;
const HTTP_WS = ['http', 'https', 'ws', 'wss'] as const;

function items(value: FlagValue): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** Each --p2p.bootnodes entry is a base64 node record (`enr:`) or, as op-node also accepts, an `enode://` URL. */
function checkEnrList(value: FlagValue): string | undefined {
  const bad = items(value).find((item) => !item.startsWith('enr:') && !item.startsWith('enode://'));
  return bad === undefined ? undefined : `"${bad}" is not a node record (ENRs start with "enr:") or an enode:// URL`;
}

/** Each --p2p.static entry is a multiaddr with the peer ID, e.g. /ip4/1.2.3.4/tcp/9222/p2p/16Uiu2…. */
function checkStaticPeers(value: FlagValue): string | undefined {
  const bad = items(value).find((item) => !item.startsWith('/') || !item.includes('/p2p/'));
  return bad === undefined
    ? undefined
    : `"${bad}" is not a multiaddr with a peer ID (like /ip4/1.2.3.4/tcp/9222/p2p/<peer-id>)`;
}

/** op-node takes one `Key: Value` beacon header (a single string flag). */
function checkSingleHeader(value: FlagValue): string | undefined {
  return Array.isArray(value) && value.length > 1 ? 'only one header is accepted' : undefined;
}

/** A fork-override flag: an activation timestamp (seconds), 0 meaning no override. */
function forkOverride(fork: string, label: string): FlagSpec {
  return {
    name: `override.${fork}`,
    kind: 'uint',
    default: 0,
    help: `Override the bundled ${label} activation timestamp (Unix seconds; 0 keeps the bundled value).`,
    category: FORKS,
    implemented: true,
  };
}

const FLAGS: readonly FlagSpec[] = [
  // 2.1 Flag conventions
  {
    name: 'help',
    aliases: ['h'],
    kind: 'bool',
    default: false,
    help: 'Print help and exit.',
    category: MISC,
    implemented: true,
  },
  {
    name: 'version',
    aliases: ['v'],
    kind: 'bool',
    default: false,
    help: 'Print the version and exit (a build from source does not print a release version number).',
    category: MISC,
    implemented: true,
  },

  // 2.4 Layer-1 and layer-2 connection
  {
    name: 'l1',
    kind: 'url',
    schemes: HTTP_WS,
    default: 'http://127.0.0.1:8545',
    help: 'Layer-1 user JSON-RPC endpoint (eth namespace required).',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.beacon',
    kind: 'url',
    schemes: HTTP,
    help: 'Layer-1 beacon-node HTTP endpoint (used for blob sidecars).',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.beacon-fallbacks',
    kind: 'urlList',
    schemes: HTTP,
    help: 'Comma-separated Beacon-API compatible fallback endpoints, used for blob sidecars missing at the main beacon endpoint (e.g. expired blobs).',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.beacon-header',
    kind: 'header',
    repeatable: false,
    help: "Optional HTTP header added to every request to the beacon endpoint. Format: 'X-Key: Value'.",
    category: L1L2,
    implemented: true,
    check: checkSingleHeader,
  },
  {
    name: 'l1.beacon.fetch-all-sidecars',
    kind: 'bool',
    default: beaconClientDefaults.fetchAllSidecars,
    help: 'Fetch all blob sidecars and filter locally (workaround for faulty beacon nodes).',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.beacon.ignore',
    kind: 'bool',
    default: beaconClientDefaults.ignore,
    help: 'Do not halt startup when the beacon endpoint health check fails.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.cache-size',
    kind: 'uint',
    default: l1ClientDefaults.cacheSize,
    help: 'Cache size for layer-1 blocks, receipts and transactions (900 is about 3 hours of blocks; 0 means 3/2 of the sequencing window, usually 2400). Higher values use significantly more memory.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.epoch-poll-interval',
    kind: 'duration',
    default: l1HeadsDefaults.epochPollIntervalMs,
    help: 'Poll interval for new layer-1 epoch updates (safe and finalized changes). Disabled if 0 or negative.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.http-poll-interval',
    kind: 'duration',
    default: l1HeadsDefaults.httpPollIntervalMs,
    help: 'Polling interval of the latest-block subscription over an HTTP RPC provider; ignored for other endpoint types.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.max-concurrency',
    kind: 'uint',
    min: 1,
    default: l1ClientDefaults.maxConcurrency,
    help: 'Maximum concurrent RPC requests to the layer-1 provider.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.rpc-max-batch-size',
    kind: 'uint',
    min: 1,
    max: 500,
    default: l1ClientDefaults.maxBatchSize,
    help: 'Maximum RPC requests bundled in one batch (e.g. receipts). The rate limit counts a batch as N items but lets it burst at once.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.rpc-rate-limit',
    kind: 'float',
    min: 0,
    default: l1ClientDefaults.rateLimit,
    help: 'Self-imposed global rate limit on layer-1 RPC requests, in requests per second. Disabled if 0.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.rpckind',
    kind: 'enum',
    values: [
      'alchemy',
      'quicknode',
      'infura',
      'parity',
      'nethermind',
      'debug_geth',
      'erigon',
      'basic',
      'any',
      'standard',
    ],
    default: l1ClientDefaults.rpcKind,
    help: 'Kind of layer-1 RPC provider, used to optimise receipts fetching.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.runtime-config-reload-interval',
    kind: 'duration',
    default: 600_000,
    help: 'Poll interval for reloading the runtime config, for when config events are not picked up. Disabled if 0 or negative.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l1.trustrpc',
    kind: 'bool',
    default: l1ClientDefaults.trustRpc,
    help: 'Trust the layer-1 RPC: faster sync at the risk of bad or inconsistent data. Needed when the layer-1 client lacks eth_getProof.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l2',
    kind: 'urlList',
    schemes: HTTP_WS,
    help: 'Layer-2 engine JSON-RPC endpoint(s), the authenticated RPC of the execution client (engine and eth namespaces required).',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l2.engine-rpc-timeout',
    kind: 'duration',
    default: httpEngineDefaults.timeoutMs,
    help: 'Engine client RPC timeout.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l2.jwt-secret',
    kind: 'path',
    defaultNote: 'generated if empty',
    help: 'File with the hex-encoded 32-byte JWT secret shared with the execution client.',
    category: L1L2,
    implemented: true,
  },
  {
    name: 'l2.enginekind',
    kind: 'enum',
    values: ['geth', 'reth', 'erigon'],
    default: httpEngineDefaults.kind,
    defaultNote: 'first of three values',
    help: 'Kind of engine client, controlling behaviour per client type.',
    category: L1L2,
    implemented: true,
  },

  // 2.5 Network selection and rollup
  {
    name: 'network',
    kind: 'enum',
    values: NETWORK_NAMES,
    help: 'Predefined network to run (instead of --rollup.config).',
    category: NETWORK,
    implemented: true,
  },
  {
    name: 'rollup.config',
    kind: 'path',
    help: 'Rollup configuration JSON file (genesis, layer-1 contract addresses, fork times, block time, sequence window). Required for custom chains.',
    category: NETWORK,
    implemented: true,
  },
  {
    name: 'rollup.halt',
    kind: 'enum',
    values: ['major', 'minor', 'patch', 'none'],
    defaultNote: 'unset (opt-in)',
    help: 'Halt on incompatible protocol version requirements of the given level, as signalled onchain on layer 1.',
    category: NETWORK,
    implemented: true,
  },
  {
    name: 'rollup.l1-chain-config',
    kind: 'path',
    help: 'Layer-1 chain configuration JSON file (directly or under `.config`); ignored for the two well-known public layer-1 chains.',
    category: NETWORK,
    implemented: true,
  },
  {
    name: 'rollup.load-protocol-versions',
    kind: 'bool',
    default: false,
    help: 'Load protocol versions from the superchain layer-1 ProtocolVersions contract (if available) and report them in logs and metrics.',
    category: NETWORK,
    implemented: true,
  },
  {
    name: 'syncmode',
    kind: 'enum',
    values: ['consensus-layer', 'execution-layer'],
    default: driverDefaults.syncMode,
    help: 'Blockchain sync mode.',
    category: NETWORK,
    implemented: true,
  },

  // 2.6 Fork overrides
  forkOverride('canyon', 'Canyon'),
  forkOverride('delta', 'Delta'),
  forkOverride('ecotone', 'Ecotone'),
  forkOverride('fjord', 'Fjord'),
  forkOverride('granite', 'Granite'),
  forkOverride('holocene', 'Holocene'),
  forkOverride('isthmus', 'Isthmus'),
  forkOverride('interop', 'Interop'),
  forkOverride('jovian', 'Jovian'),
  forkOverride('pectrablobschedule', 'Pectra blob schedule'),

  // 2.7 Logging
  ...LOGGING_FLAGS,

  // 2.8 RPC, metrics and profiling
  {
    name: 'rpc.addr',
    kind: 'host',
    default: nodeRpcDefaults.host,
    help: 'RPC listening address.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.port',
    kind: 'port',
    default: nodeRpcDefaults.port,
    help: 'RPC listening port.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.enable-admin',
    kind: 'bool',
    default: false,
    help: 'Enable the admin API (experimental).',
    category: RPC,
    implemented: true,
  },
  {
    name: 'rpc.admin-state',
    kind: 'path',
    defaultNote: 'unset',
    help: 'File that persists changes made through the admin API across restarts. Disabled when unset.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'metrics.enabled',
    kind: 'bool',
    default: false,
    help: 'Enable the metrics server.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'metrics.addr',
    kind: 'host',
    default: '0.0.0.0',
    help: 'Metrics listening address.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'metrics.port',
    kind: 'port',
    default: 7300,
    help: 'Metrics listening port.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'pprof.enabled',
    kind: 'bool',
    default: false,
    help: 'Enable the profiling server.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'pprof.addr',
    kind: 'host',
    default: '0.0.0.0',
    help: 'Profiling listening address.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'pprof.port',
    kind: 'port',
    default: 6060,
    help: 'Profiling listening port.',
    category: RPC,
    implemented: true,
  },
  {
    name: 'pprof.path',
    kind: 'path',
    help: 'Profile file path; if a directory, the file is {dir}/{profileType}.prof. Written when the node stops (cpu when --pprof.type is unset).',
    category: RPC,
    implemented: true,
  },
  {
    name: 'pprof.type',
    kind: 'enum',
    values: ['cpu', 'heap', 'goroutine', 'threadcreate', 'block', 'mutex', 'allocs'],
    help: 'Profile type.',
    category: RPC,
    implemented: true,
  },

  // 2.9 Peer-to-peer
  {
    name: 'p2p.advertise.ip',
    kind: 'host',
    help: 'IP (or host name, resolved to an IP) advertised in Discv5 and placed in the node record (ENR).',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.advertise.tcp',
    kind: 'port',
    default: 0,
    help: 'Advertised TCP port; 0 means the value of --p2p.listen.tcp.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.advertise.udp',
    kind: 'port',
    default: 0,
    help: 'Advertised UDP port, a fallback if Discv5 does not determine it; 0 means the value of --p2p.listen.udp.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.ban.duration',
    kind: 'duration',
    default: 3_600_000,
    help: 'How long peers are banned.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.ban.peers',
    kind: 'bool',
    default: true,
    help: 'Enable peer banning.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.ban.threshold',
    kind: 'float',
    default: -100,
    help: 'Score below which peers are disconnected and banned.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.bootnodes',
    kind: 'list',
    help: 'Comma-separated base64 node records (ENRs) of bootnodes for starting discovery.',
    category: P2P,
    implemented: true,
    check: checkEnrList,
  },
  {
    name: 'p2p.disable',
    kind: 'bool',
    default: false,
    help: 'Disable the whole P2P stack.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.discovery.path',
    kind: 'path',
    default: 'consensus_discovery_db',
    help: 'Database of discovered node records; `memory` never persists.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.gossip.timestamp.threshold',
    kind: 'duration',
    default: 60_000,
    help: 'Gossip messages whose payload timestamp is older than this are rejected.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.listen.ip',
    kind: 'ip',
    default: '0.0.0.0',
    help: 'Bind address for LibP2P and Discv5.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.listen.tcp',
    kind: 'port',
    default: 9222,
    help: 'TCP port for LibP2P; 0 means any available system port.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.listen.udp',
    kind: 'port',
    default: 0,
    help: 'UDP port for Discv5; 0 means the same as the TCP port.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.nat',
    kind: 'bool',
    default: false,
    help: 'NAT traversal through PMP/UPNP devices to learn the external IP.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.netrestrict',
    kind: 'cidrList',
    help: 'Comma-separated CIDR masks: P2P only tries to connect on these networks.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.no-discovery',
    kind: 'bool',
    default: false,
    help: 'Disable Discv5.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.peers.grace',
    kind: 'duration',
    default: 30_000,
    help: 'Grace period to keep a newly connected peer that is not misbehaving.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.peers.hi',
    kind: 'uint',
    default: 30,
    help: 'High-tide peer count: slow pruning starts above this.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.peers.lo',
    kind: 'uint',
    default: 20,
    help: 'Low-tide peer count: active search for peers below this.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.peerstore.path',
    kind: 'path',
    default: 'consensus_peerstore_db',
    help: 'Database of discovered peers (also holds a copy of the local network key); `memory` disables persistence.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.priv.path',
    kind: 'path',
    default: 'consensus_p2p_priv.txt',
    help: 'File with the hex-encoded 32-byte private key of the peer ID; created if absent, keeps the identity across restarts.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.scoring',
    kind: 'enum',
    values: ['none', 'light'],
    default: 'light',
    help: 'Peer scoring strategy.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.sequencer.key',
    kind: 'hex32',
    help: 'Hex private key used to sign P2P application messages as sequencer.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.static',
    kind: 'list',
    help: 'Comma-separated multiaddrs (IP, TCP port, peer ID) of static peers: connected, kept connected and trusted.',
    category: P2P,
    implemented: true,
    check: checkStaticPeers,
  },
  {
    name: 'p2p.sync.onlyreqtostatic',
    kind: 'bool',
    default: false,
    help: 'Send RequestL2Range sync requests to static peers only.',
    category: P2P,
    implemented: true,
  },
  {
    name: 'p2p.sync.req-resp',
    kind: 'bool',
    default: true,
    help: 'Enable the P2P request-response alternative sync method, server and client side.',
    category: P2P,
    implemented: true,
  },

  // 2.10 Sequencer, verifier and conductor
  {
    name: 'sequencer.enabled',
    kind: 'bool',
    default: false,
    help: 'Enable sequencing of new layer-2 blocks.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'sequencer.l1-confs',
    kind: 'uint',
    default: sequencerDefaults.l1Confs,
    help: 'Distance (layer-1 blocks) kept from the layer-1 head when picking a layer-1 origin.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'sequencer.max-safe-lag',
    kind: 'uint',
    default: sequencerDefaults.maxSafeLag,
    help: 'Maximum distance (layer-2 blocks) between the safe and unsafe heads. Disabled if 0.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'sequencer.recover',
    kind: 'bool',
    default: sequencerDefaults.recover,
    help: 'Force the sequencer to strictly prepare the next layer-1 origin and create empty layer-2 blocks.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'sequencer.stopped',
    kind: 'bool',
    default: sequencerDefaults.stopped,
    help: 'Start the sequencer in a stopped state (admin_startSequencer starts it).',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'verifier.l1-confs',
    kind: 'uint',
    default: 0,
    help: 'Distance (layer-1 blocks) kept from the layer-1 head before deriving layer-2 data.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'conductor.enabled',
    kind: 'bool',
    default: false,
    help: 'Enable the conductor service.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'conductor.rpc',
    kind: 'url',
    schemes: HTTP,
    default: conductorClientDefaults.url,
    help: 'Conductor RPC endpoint.',
    category: SEQUENCER,
    implemented: true,
  },
  {
    name: 'conductor.rpc-timeout',
    kind: 'duration',
    default: conductorClientDefaults.timeoutMs,
    help: 'Conductor RPC timeout.',
    category: SEQUENCER,
    implemented: true,
  },

  // 2.11 Signer (external signer for P2P messages)
  {
    name: 'signer.address',
    kind: 'address',
    help: 'Address the external signer signs requests for.',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.endpoint',
    kind: 'url',
    schemes: HTTP,
    help: 'External signer endpoint.',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.header',
    kind: 'keyValue',
    repeatable: true,
    help: 'Header passed to the remote signer, one key=value per flag (comma-separated in the environment variable).',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.tls.enabled',
    kind: 'bool',
    default: remoteSignerDefaults.tls.enabled,
    help: 'TLS client authentication for the signer.',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.tls.ca',
    kind: 'path',
    default: remoteSignerDefaults.tls.ca,
    help: 'TLS CA certificate path.',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.tls.cert',
    kind: 'path',
    default: remoteSignerDefaults.tls.cert,
    help: 'TLS certificate path.',
    category: SIGNER,
    implemented: true,
  },
  {
    name: 'signer.tls.key',
    kind: 'path',
    default: remoteSignerDefaults.tls.key,
    help: 'TLS key path.',
    category: SIGNER,
    implemented: true,
  },

  // 2.12 Alternative data availability (experimental, beta)
  ...altDaFlags(ALTDA, 'Enable alternative data availability mode.'),

  // 2.13 Interop (highly experimental)
  {
    name: 'interop.dependency-set',
    kind: 'path',
    help: 'JSON file with the dependency-set configuration.',
    category: INTEROP,
    implemented: true,
  },
  {
    name: 'interop.jwt-secret',
    kind: 'path',
    defaultNote: 'generated if the file is empty',
    help: 'File with the JWT secret (32 bytes, hex) authenticating the interop RPC server. Interop-enabled networks only.',
    category: INTEROP,
    implemented: true,
  },
  {
    name: 'interop.rpc.addr',
    kind: 'host',
    defaultNote: 'empty (disabled)',
    help: 'Websocket-only interop RPC listening address, used by a supervisor to manage syncing. Not to be enabled without a supervisor.',
    category: INTEROP,
    implemented: true,
  },
  {
    name: 'interop.rpc.port',
    kind: 'port',
    default: 9645,
    help: 'Interop RPC listening port.',
    category: INTEROP,
    implemented: true,
  },

  // 2.14 Miscellaneous
  {
    name: 'experimental.sequencer-api',
    kind: 'bool',
    default: false,
    help: 'Enable experimental test sequencer RPC functionality.',
    category: MISC,
    implemented: true,
  },
  {
    name: 'fetch-withdrawal-root-from-state',
    kind: 'bool',
    default: httpEngineDefaults.fetchWithdrawalRootFromState,
    help: 'Read the withdrawal (message passer) storage root from the state trie through the execution layer instead of the block header, as before isthmus. Needs an archive execution client.',
    category: MISC,
    implemented: true,
  },

  // Flags named only in the seed's file table (2.2)
  {
    name: 'safedb.path',
    kind: 'path',
    help: 'Database that persists safe-head update data. Disabled when unset.',
    category: MISC,
    implemented: true,
  },
  {
    name: 'snapshotlog.file',
    kind: 'path',
    help: 'Path of the snapshot log file.',
    category: MISC,
    implemented: true,
  },
];

export const NODE_PROGRAM: ProgramSpec = {
  program: 'tern-node',
  envPrefix: 'TERN_NODE',
  summary: 'Rollup consensus-layer node (op-node role): derives the layer-2 chain from layer 1 and drives tern-exec.',
  flags: FLAGS,
  subcommands: [],
  tomlConfig: false,
};
