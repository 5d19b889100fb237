// tern-node's parsed flags turned into its typed options, once per run: the only place that reads tern-node's
// flags by name. Each part is the options type of the module that uses it (node/options.ts composes them).
import { type LogFormat, type LoggerOptions, levelFromName } from '../common/logger/index.js';
import type { NodeObservabilityOptions } from '../common/metrics/nodeObservability.js';
import type { ProfileType } from '../common/pprof/onStop.js';
import type { SyncMode } from '../node/driver/driver.js';
import type { HaltLevel } from '../node/driver/protocolVersions.js';
import type { ReplicaOptions, RollupConfigSource } from '../node/driver/replica.js';
import type { EngineKind } from '../node/engine/http.js';
import type { RpcKind } from '../node/l1/receiptsMethod.js';
import type { NodeOptions } from '../node/options.js';
import type { SequencingOptions } from '../node/sequencer/setup.js';
import { OP_UPGRADES } from '../primitives/op/forks.js';
import type { Settings } from './parse.js';

/** Where the engine JWT secret goes when --l2.jwt-secret is left empty (op-node's habit: the working directory). */
export const DEFAULT_JWT_SECRET_PATH = 'jwt.txt';

type Get = Pick<Settings, 'get'>;

const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** --log.level, --log.format, --log.color, --log.pid; op-node logs to stdout (geth, and so tern-exec, to stderr). */
export function nodeLoggerOptions(settings: Get): LoggerOptions {
  return {
    level: levelFromName(settings.get<string>('log.level')),
    format: settings.get<LogFormat>('log.format'),
    color: settings.get<boolean>('log.color'),
    pid: settings.get<boolean>('log.pid'),
    output: 'stdout',
  };
}

function observabilityOptions(settings: Get): NodeObservabilityOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  return {
    metrics: get<boolean>('metrics.enabled')
      ? { host: get<string>('metrics.addr'), port: get<number>('metrics.port') }
      : undefined,
    pprof: get<boolean>('pprof.enabled')
      ? { host: get<string>('pprof.addr'), port: get<number>('pprof.port') }
      : undefined,
    profilePath: nonEmpty(get<string | undefined>('pprof.path')),
    profileType: get<ProfileType | undefined>('pprof.type'),
  };
}

/** --rollup.config or --network, and the --override.* fork times that are set (0 keeps the bundled time). */
function rollupConfigSource(settings: Pick<Settings, 'get' | 'program'>): RollupConfigSource {
  const overrides: Record<string, number> = {};
  for (const fork of [...OP_UPGRADES, 'pectrablobschedule']) {
    const name = `override.${fork}`;
    if (!settings.program.flags.some((f) => f.name === name)) continue;
    const t = settings.get<number>(name);
    if (t > 0) overrides[fork] = t;
  }
  return {
    path: settings.get<string | undefined>('rollup.config'),
    network: settings.get<string | undefined>('network'),
    overrides,
  };
}

/** --sequencer.*, --conductor.*, --p2p.sequencer.key, --signer.*, --rpc.admin-state, the admin and opstack APIs. */
export function sequencingOptions(settings: Get): SequencingOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  return {
    enabled: get<boolean>('sequencer.enabled'),
    sequencer: {
      l1Confs: get<number>('sequencer.l1-confs'),
      maxSafeLag: get<number>('sequencer.max-safe-lag'),
      stopped: get<boolean>('sequencer.stopped'),
      recover: get<boolean>('sequencer.recover'),
    },
    conductor: get<boolean>('conductor.enabled')
      ? { url: get<string>('conductor.rpc'), timeoutMs: get<number>('conductor.rpc-timeout') }
      : undefined,
    signer: {
      sequencerKey: get<string | undefined>('p2p.sequencer.key'),
      remote: {
        endpoint: get<string | undefined>('signer.endpoint'),
        address: get<string | undefined>('signer.address'),
        headers: get<[string, string][] | undefined>('signer.header') ?? [],
        tls: {
          enabled: get<boolean>('signer.tls.enabled'),
          ca: get<string>('signer.tls.ca'),
          cert: get<string>('signer.tls.cert'),
          key: get<string>('signer.tls.key'),
        },
      },
    },
    adminStatePath: get<string | undefined>('rpc.admin-state'),
    sequencerApi: get<boolean>('experimental.sequencer-api'),
    adminApi: get<boolean>('rpc.enable-admin'),
  };
}

/** The replica: rollup config, L1 and beacon clients, engine, derivation, safe-head database, RPC, sequencing. */
export function replicaOptions(settings: Pick<Settings, 'get' | 'program'>): ReplicaOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  // --l1.beacon-header parses to [name, value] pairs; the beacon client takes one `Name: Value`.
  const header = get<[string, string][] | undefined>('l1.beacon-header')?.[0];
  return {
    rollupConfig: rollupConfigSource(settings),
    l1ChainConfigPath: get<string | undefined>('rollup.l1-chain-config'),
    engine: {
      urls: get<string[] | undefined>('l2') ?? [],
      timeoutMs: get<number>('l2.engine-rpc-timeout'),
      kind: get<EngineKind>('l2.enginekind'),
    },
    fetchWithdrawalRootFromState: get<boolean>('fetch-withdrawal-root-from-state'),
    l1: {
      url: get<string>('l1'),
      rpcKind: get<RpcKind>('l1.rpckind'),
      trustRpc: get<boolean>('l1.trustrpc'),
      maxBatchSize: get<number>('l1.rpc-max-batch-size'),
      maxConcurrency: get<number>('l1.max-concurrency'),
      rateLimit: get<number>('l1.rpc-rate-limit'),
      cacheSize: get<number>('l1.cache-size'),
    },
    beacon: {
      url: get<string | undefined>('l1.beacon'),
      fallbacks: get<string[] | undefined>('l1.beacon-fallbacks') ?? [],
      header: header === undefined ? undefined : `${header[0]}: ${header[1]}`,
      fetchAllSidecars: get<boolean>('l1.beacon.fetch-all-sidecars'),
      ignore: get<boolean>('l1.beacon.ignore'),
    },
    safeDbPath: get<string | undefined>('safedb.path'),
    snapshotLogFile: get<string | undefined>('snapshotlog.file'),
    p2p: {
      disabled: get<boolean>('p2p.disable'),
      privPath: get<string>('p2p.priv.path'),
      noDiscovery: get<boolean>('p2p.no-discovery'),
      nat: get<boolean>('p2p.nat'),
      peerstorePath: get<string>('p2p.peerstore.path'),
      listenIp: get<string>('p2p.listen.ip'),
      listenTcp: get<number>('p2p.listen.tcp'),
      listenUdp: get<number>('p2p.listen.udp'),
      advertiseIp: get<string | undefined>('p2p.advertise.ip'),
      advertiseTcp: get<number>('p2p.advertise.tcp'),
      advertiseUdp: get<number>('p2p.advertise.udp'),
      bootnodes: get<string[] | undefined>('p2p.bootnodes') ?? [],
      network: get<string | undefined>('network'),
      discoveryPath: get<string>('p2p.discovery.path'),
      staticPeers: get<string[] | undefined>('p2p.static') ?? [],
      netrestrict: get<string[] | undefined>('p2p.netrestrict') ?? [],
      peersLo: get<number>('p2p.peers.lo'),
      peersHi: get<number>('p2p.peers.hi'),
      peersGraceMs: get<number>('p2p.peers.grace'),
      scoring: get<'none' | 'light'>('p2p.scoring'),
      banPeers: get<boolean>('p2p.ban.peers'),
      banThreshold: get<number>('p2p.ban.threshold'),
      banDurationMs: get<number>('p2p.ban.duration'),
      signerReloadIntervalMs: get<number>('l1.runtime-config-reload-interval'),
      gossipTimestampThresholdMs: get<number>('p2p.gossip.timestamp.threshold'),
      syncReqResp: get<boolean>('p2p.sync.req-resp'),
      syncOnlyReqToStatic: get<boolean>('p2p.sync.onlyreqtostatic'),
    },
    altDa: {
      enabled: get<boolean>('altda.enabled'),
      daServer: get<string | undefined>('altda.da-server'),
      verifyOnRead: get<boolean>('altda.verify-on-read'),
      daService: get<boolean>('altda.da-service'),
      getTimeoutMs: get<number>('altda.get-timeout'),
    },
    interop: {
      dependencySetPath: get<string | undefined>('interop.dependency-set'),
      rpcAddr: get<string | undefined>('interop.rpc.addr') ?? '',
      rpcPort: get<number>('interop.rpc.port'),
      jwtSecretPath: get<string | undefined>('interop.jwt-secret') ?? '',
    },
    verifierL1Confs: get<number>('verifier.l1-confs'),
    syncMode: get<SyncMode>('syncmode'),
    l1Heads: {
      httpPollIntervalMs: get<number>('l1.http-poll-interval'),
      epochPollIntervalMs: get<number>('l1.epoch-poll-interval'),
    },
    protocolVersions: {
      load: get<boolean>('rollup.load-protocol-versions'),
      halt: get<HaltLevel | undefined>('rollup.halt'),
      intervalMs: get<number>('l1.runtime-config-reload-interval'),
    },
    rpc: { host: get<string>('rpc.addr'), port: get<number>('rpc.port') },
    sequencing: sequencingOptions(settings),
  };
}

/** All of tern-node's options. */
export function nodeOptions(settings: Settings): NodeOptions {
  const jwtFlag = settings.get<string | undefined>('l2.jwt-secret')?.trim();
  return {
    logger: nodeLoggerOptions(settings),
    observability: observabilityOptions(settings),
    jwtSecretPath: jwtFlag === undefined || jwtFlag === '' ? DEFAULT_JWT_SECRET_PATH : jwtFlag,
    replica: replicaOptions(settings),
  };
}
