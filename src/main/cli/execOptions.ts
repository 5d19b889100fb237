// tern-exec's parsed flags turned into its typed options, once per run: the only place that reads tern-exec's
// flags by name. Each part is the options type of the module that uses it (exec/options.ts composes them); the
// rules geth applies between flags (archive mode, paths inside the data directory, --dev's network id) are
// resolved here, so a module sees plain values.
import { isAbsolute, join } from 'node:path';
import { UsageError } from '../common/errors.js';
import { type LogFormat, type LoggerOptions, levelFromVerbosity, parseVmodule } from '../common/logger/index.js';
import { type ChainOverrides, OVERRIDE_FORKS } from '../exec/chain/overrides.js';
import type { ConsoleCommandOptions } from '../exec/cmd/console.js';
import { resolveEraDir } from '../exec/db/open.js';
import { DEV_CHAIN_ID } from '../exec/dev/genesis.js';
import type { DevOptions } from '../exec/dev/start.js';
import type { HaltLevel } from '../exec/engine/api.js';
import type { GraphqlHttpOptions } from '../exec/graphql/http.js';
import {
  type ChainHistoryMode,
  cacheAllocation,
  type GcMode,
  type HistoryOptions,
  historyDefaults,
  type ResolvedStorageSettings,
  type StateScheme,
  snapshotCacheOptions,
} from '../exec/history/options.js';
import type { ExecObservabilityOptions } from '../exec/metrics/observability.js';
import { ipcEndpoint } from '../exec/node.js';
import type { ExecOptions } from '../exec/options.js';
import type { P2pNodeOptions } from '../exec/p2p/options.js';
import type { ChainSetupOptions } from '../exec/rollup/chainSetup.js';
import type { RollupOptions } from '../exec/rollup/options.js';
import { L1_PRESETS, type L1Network } from '../networks/l1.js';
import { opNetworkBootnodes } from '../networks/opBootnodes.js';
import { fromHex } from '../primitives/bytes.js';
import { selectedL1Network } from './execNetworks.js';
import type { Settings } from './parse.js';

/** The flag values a builder reads: parse.ts's Settings, or a test's record. */
export interface SettingsLike {
  get<T>(name: string): T;
  isSet(name: string): boolean;
}

const list = (v: string[] | undefined): string[] | undefined => (v && v.length > 0 ? v : undefined);
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** A path flag relative to the data directory (geth's ResolvePath); empty disables. */
const inDatadir = (datadir: string, p: string | undefined): string | undefined =>
  p === undefined || p === '' ? undefined : isAbsolute(p) ? p : join(datadir, p);

/** Fails with a clear message for what Node cannot do (before anything starts). */
export function checkExecObservabilitySettings(settings: Pick<Settings, 'get'>): void {
  const trace = settings.get<string | undefined>('go-execution-trace');
  if (trace !== undefined && trace !== '') {
    throw new UsageError(
      '--go-execution-trace: Node.js has no Go execution tracer. Use --pprof.cpuprofile=<file> for a CPU profile of ' +
        'every thread over the whole run, or the pprof server (--pprof) for profiles on demand',
    );
  }
  if (settings.get<boolean>('metrics.tsdb') && settings.get<boolean>('metrics.tsdbv2')) {
    throw new UsageError('--metrics.tsdb and --metrics.tsdbv2 are mutually exclusive');
  }
}

/** geth's SetEthConfig rules for these flags: archive mode indexes every transaction and has other cache shares. */
export function storageSettings(s: SettingsLike): ResolvedStorageSettings {
  const notes: string[] = [];
  const gcMode = s.get<GcMode>('gcmode');
  if (gcMode !== 'full' && gcMode !== 'archive') throw new UsageError("--gcmode must be either 'full' or 'archive'");
  let txHistory = s.get<number>('history.transactions');
  if (gcMode === 'archive' && txHistory !== 0) {
    txHistory = 0;
    notes.push('Disabled transaction unindexing for archive node');
  }
  const archive = gcMode === 'archive';
  // The percentages' defaults differ in archive mode (flags help: 15/25/10 full, 30/0/20 archive).
  const pct = (name: string, archiveDefault: number) =>
    archive && !s.isSet(name) ? archiveDefault : s.get<number>(name);
  const cache = cacheAllocation({
    cache: s.get<number>('cache'),
    database: s.get<number>('cache.database'),
    trie: pct('cache.trie', 30),
    gc: pct('cache.gc', 0),
    snapshot: pct('cache.snapshot', 20),
    blockLogs: s.get<number>('cache.blocklogs'),
    snapshotEnabled: s.get<boolean>('snapshot'),
  });
  const minFreeDiskMB = s.isSet('datadir.minfreedisk') ? s.get<number>('datadir.minfreedisk') : 2 * cache.trieDirtyMB;
  const history: HistoryOptions = {
    ...historyDefaults,
    txHistory,
    logHistory: s.get<number>('history.logs'),
    logsDisabled: s.get<boolean>('history.logs.disable'),
    logExportFile: s.get<string | undefined>('history.logs.export') ?? '',
    chainHistory: s.get<ChainHistoryMode>('history.chain'),
    gcMode,
    stateScheme: s.get<StateScheme | undefined>('state.scheme'),
    stateHistory: s.get<number>('history.state'),
  };
  return { history, cache, flatState: snapshotCacheOptions(cache.snapshotMB), minFreeDiskMB, notes };
}

/** The other --rollup.* flags, resolved as op-geth's SetEthConfig resolves them. */
export function rollupOptions(settings: Pick<Settings, 'get'>): RollupOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  const sequencerHttp = nonEmpty(get<string | undefined>('rollup.sequencerhttp'));
  return {
    sequencerHttp,
    historicalRpc: nonEmpty(get<string | undefined>('rollup.historicalrpc')),
    historicalRpcTimeoutMs: get<number>('rollup.historicalrpctimeout'),
    disableTxPoolGossip: get<boolean>('rollup.disabletxpoolgossip'),
    disableTxPoolAdmission: sequencerHttp !== undefined && !get<boolean>('rollup.enabletxpooladmission'),
    conditionalEnabled: get<boolean>('rollup.sequencertxconditionalenabled'),
    conditionalCostRateLimit: get<number>('rollup.sequencertxconditionalcostratelimit'),
    interopRpc: nonEmpty(get<string | undefined>('rollup.interoprpc')),
    interopMempoolFiltering: get<boolean>('rollup.interopmempoolfiltering'),
  };
}

/** --stack-network, --rollup.superchain-upgrades and the --override.* flags given (op-geth applies only those). */
export function chainSetupOptions(settings: Pick<Settings, 'get' | 'source'>): ChainSetupOptions {
  const overrides: ChainOverrides = {};
  for (const fork of OVERRIDE_FORKS) {
    const name = `override.${fork}`;
    if (settings.source(name) !== 'default') overrides[fork] = BigInt(settings.get<number>(name));
  }
  return {
    network: settings.get<string | undefined>('stack-network'),
    l1Network: selectedL1Network(settings),
    overrides,
    superchainUpgrades: settings.get<boolean>('rollup.superchain-upgrades'),
  };
}

/**
 * The node's options from tern-exec's settings. `over` replaces the data directory and the network id (--dev
 * without --datadir runs in a temporary directory, with the dev chain's id unless --networkid is given).
 */
export function execNodeOptions(
  settings: SettingsLike,
  over: { datadir?: string; networkId?: number } = {},
): ExecOptions['node'] {
  const get = <T>(name: string): T => settings.get<T>(name);
  const datadir = over.datadir ?? get<string>('datadir');
  const networkId = over.networkId ?? get<number>('networkid');
  const http = get<boolean>('http')
    ? {
        host: get<string>('http.addr'),
        port: get<number>('http.port'),
        apis: list(get<string[] | undefined>('http.api')),
        corsDomains: get<string[] | undefined>('http.corsdomain'),
        vhosts: get<string[] | undefined>('http.vhosts'),
        prefix: get<string | undefined>('http.rpcprefix'),
      }
    : undefined;
  const ws = get<boolean>('ws')
    ? {
        host: get<string>('ws.addr'),
        port: get<number>('ws.port'),
        apis: list(get<string[] | undefined>('ws.api')),
        origins: get<string[] | undefined>('ws.origins'),
        prefix: get<string | undefined>('ws.rpcprefix'),
      }
    : undefined;
  const storage = storageSettings(settings);
  return {
    rpc: {
      http,
      ws,
      batchRequestLimit: get<number>('rpc.batch-request-limit'),
      batchResponseMaxSize: get<number>('rpc.batch-response-max-size'),
    },
    auth: {
      host: get<string>('authrpc.addr'),
      port: get<number>('authrpc.port'),
      vhosts: get<string[] | undefined>('authrpc.vhosts'),
      jwtSecretPath: get<string | undefined>('authrpc.jwtsecret') ?? join(datadir, 'jwtsecret'),
    },
    rollupHalt: get<HaltLevel | undefined>('rollup.halt'),
    computePendingBlock: get<boolean>('rollup.computependingblock'),
    datadir,
    vmtrace: get<string | undefined>('vmtrace')
      ? { name: get<string>('vmtrace'), config: get<unknown>('vmtrace.jsonconfig') }
      : undefined,
    preimages: {
      sha3: get<boolean>('vmdebug'),
      // geth's SetEthConfig: "Enabling recording of key preimages since archive mode is used".
      trieKeys: get<boolean>('cache.preimages') || get<string>('gcmode') === 'archive',
    },
    // geth exits after a downloader sync; a --dev chain never syncs, so it never exits there either.
    exitWhenSynced: get<boolean>('exitwhensynced') && !get<boolean>('dev'),
    sync: {
      mode: get<'full' | 'snap'>('syncmode'),
      target: ((t) => (t === undefined ? undefined : fromHex(t)))(get<string | undefined>('synctarget')),
    },
    storage,
    // newPayload's roots are hashed on the trie hasher's thread, which walks a block's paths while it executes
    // (with a spare core: exec/chain/stagePools.ts) unless --cache.noprefetch.
    trieHasher: { cacheMB: storage.cache.trieCleanMB, prefetch: !get<boolean>('cache.noprefetch') },
    rollup: rollupOptions(settings),
    p2p: p2pOptions(settings),
    // Without --http there is no listener to serve it on; execOptions refuses that when the node runs.
    graphql: settings.get<boolean>('http') ? graphqlOptions(settings) : undefined,
    ipcPath: get<boolean>('ipcdisable') ? undefined : ipcEndpoint(datadir, get<string | undefined>('ipcpath')),
    txpool: {
      locals: get<string[] | undefined>('txpool.locals') ?? [],
      noLocals: get<boolean>('txpool.nolocals'),
      journal: inDatadir(datadir, get<string | undefined>('txpool.journal')),
      journalRemotes: get<boolean>('txpool.journalremotes'),
      rejournalMs: get<number>('txpool.rejournal'),
      priceLimit: BigInt(get<number>('txpool.pricelimit')),
      priceBump: BigInt(get<number>('txpool.pricebump')),
      accountSlots: get<number>('txpool.accountslots'),
      globalSlots: get<number>('txpool.globalslots'),
      accountQueue: get<number>('txpool.accountqueue'),
      globalQueue: get<number>('txpool.globalqueue'),
      lifetimeMs: get<number>('txpool.lifetime'),
      maxTxGas: BigInt(get<number>('txpool.maxtxgas')),
      blobDataDir: inDatadir(datadir, get<string | undefined>('blobpool.datadir')),
      blobDataCap: get<number>('blobpool.datacap'),
      blobPriceBump: BigInt(get<number>('blobpool.pricebump')),
    },
    sendTx: {
      txFeeCap: get<number>('rpc.txfeecap'),
      allowUnprotected: get<boolean>('rpc.allow-unprotected-txs'),
    },
    backend: {
      networkId: BigInt(networkId),
      gasCap: BigInt(get<number>('rpc.gascap')),
      evmTimeoutMs: get<number>('rpc.evmtimeout'),
      // One debug_trace* answer is held to the bound of a batch answer.
      traceResultMaxBytes: get<number>('rpc.batch-response-max-size'),
      gpo: {
        blocks: get<number>('gpo.blocks'),
        percentile: get<number>('gpo.percentile'),
        maxPrice: BigInt(get<number>('gpo.maxprice')),
        ignorePrice: BigInt(get<number>('gpo.ignoreprice')),
        minSuggestedPriorityFee: BigInt(get<number>('gpo.minsuggestedpriorityfee')),
      },
    },
  };
}

/** Section 2.11's networking flags, --eth.requiredblocks and --rollup.disabletxpoolgossip. */
export function p2pOptions(settings: SettingsLike): P2pNodeOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  const noDiscover = get<boolean>('nodiscover');
  const port = get<number>('port');
  const l1 = selectedL1Network(settings);
  const bootnodes = get<string[] | undefined>('bootnodes');
  const stackNetwork = get<string | undefined>('stack-network');
  const nonEmptyList = (v: string[] | undefined): string[] => (v ?? []).map((x) => x.trim()).filter((x) => x !== '');
  return {
    enabled: get<number>('maxpeers') > 0,
    port,
    // geth: the discovery port follows --port unless given.
    discoveryPort: !settings.isSet('discovery.port') ? port : get<number>('discovery.port'),
    discv4: get<boolean>('discovery.v4') && !noDiscover,
    discv5: get<boolean>('discovery.v5') && !noDiscover,
    dns: noDiscover ? [] : nonEmptyList(get<string[] | undefined>('discovery.dns')),
    bootnodes: bootnodes !== undefined ? nonEmptyList(bootnodes) : defaultBootnodes(l1, stackNetwork),
    maxPeers: get<number>('maxpeers'),
    maxPendingPeers: get<number>('maxpendpeers'),
    nat: get<string>('nat'),
    netRestrict: get<string[] | undefined>('netrestrict') ?? [],
    nodeKeyHex: get<string | undefined>('nodekeyhex'),
    nodeKeyFile: get<string | undefined>('nodekey'),
    identity: get<string | undefined>('identity'),
    requiredBlocks: nonEmptyList(get<string[] | undefined>('eth.requiredblocks')).map((item) => {
      const [n, h] = item.split('=');
      return [BigInt(n as string), h as string];
    }),
    txGossip: !get<boolean>('rollup.disabletxpoolgossip'),
  };
}

/**
 * The bootnodes of the selected network when --bootnodes is not given: geth's lists for the L1 networks, op-geth's
 * OP lists for --stack-network (op-geth applies those to discv5; tern-exec has one list for both discoveries).
 */
function defaultBootnodes(l1: L1Network | undefined, stackNetwork: string | undefined): string[] {
  if (l1 !== undefined) return [...L1_PRESETS[l1].bootnodes];
  if (stackNetwork !== undefined) return [...opNetworkBootnodes(stackNetwork)];
  return [];
}

/** --verbosity, --log.format, --log.vmodule and the --log.file rotation flags. */
export function execLoggerOptions(settings: Pick<Settings, 'get'>): LoggerOptions {
  const vmodule = settings.get<string[] | undefined>('log.vmodule');
  const file = settings.get<string | undefined>('log.file');
  return {
    level: levelFromVerbosity(settings.get<number>('verbosity')),
    // geth's default: the terminal format, coloured when stderr is a terminal.
    format: settings.get<LogFormat | undefined>('log.format') ?? 'terminal',
    color: settings.get<string | undefined>('log.format') === undefined && process.stderr.isTTY === true,
    ...(vmodule && vmodule.length > 0 ? { vmodule: parseVmodule(vmodule.join(',')) } : {}),
    ...(file
      ? {
          file: {
            path: file,
            rotate: settings.get<boolean>('log.rotate'),
            maxSizeMB: settings.get<number>('log.maxsize'),
            maxBackups: settings.get<number>('log.maxbackups'),
            maxAgeDays: settings.get<number>('log.maxage'),
            compress: settings.get<boolean>('log.compress'),
            // geth keeps logging to the console as well when --log.file is set.
            tee: true,
          },
        }
      : {}),
  };
}

/** --metrics*, --pprof*, --ethstats. */
export function execObservabilityOptions(settings: Pick<Settings, 'get'>): ExecObservabilityOptions {
  const get = <T>(name: string): T => settings.get<T>(name);
  const blockRate = get<number>('pprof.blockprofilerate');
  return {
    metrics: get<boolean>('metrics'),
    metricsAddr: nonEmpty(get<string | undefined>('metrics.addr')),
    metricsPort: get<number>('metrics.port'),
    expensive: get<boolean>('metrics.expensive'),
    influx:
      get<boolean>('metrics.tsdb') || get<boolean>('metrics.tsdbv2')
        ? {
            endpoint: get<string>('metrics.tsdb.endpoint'),
            version: get<boolean>('metrics.tsdbv2') ? 2 : 1,
            database: get<string>('metrics.tsdb.database'),
            username: get<string>('metrics.tsdb.username'),
            password: get<string>('metrics.tsdb.password'),
            token: get<string>('metrics.tsdb.token'),
            organization: get<string>('metrics.tsdb.organization'),
            bucket: get<string>('metrics.tsdb.bucket'),
            tags: get<string[]>('metrics.tsdb.tags'),
          }
        : undefined,
    pprof: get<boolean>('pprof')
      ? {
          host: get<string>('pprof.addr'),
          port: get<number>('pprof.port'),
          memProfileRate: get<number>('pprof.memprofilerate'),
          // Go's rate is nanoseconds of blocking per sample; Node measures event-loop delay in ms ticks.
          blockResolutionMs: blockRate > 0 ? Math.max(1, Math.round(blockRate / 1e6)) : 0,
        }
      : undefined,
    cpuProfile: nonEmpty(get<string | undefined>('pprof.cpuprofile')),
    ethstats: nonEmpty(get<string | undefined>('ethstats')),
    networkId: get<number>('networkid'),
  };
}

/** --dev.*, with the node's options over whichever data directory the dev chain ends up in. */
function devOptions(settings: Settings): DevOptions {
  const networkId = settings.get<number>('networkid') === 0 ? DEV_CHAIN_ID : settings.get<number>('networkid');
  return {
    persistent: settings.source('datadir') !== 'default',
    keystore: nonEmpty(settings.get<string | undefined>('keystore')),
    gasLimit: BigInt(settings.get<number>('dev.gaslimit')),
    period: settings.get<number>('dev.period'),
    beacon: { host: settings.get<string>('dev.beacon.addr'), port: settings.get<number>('dev.beacon.port') },
    // geth's --dev runs without peers (MaxPeers 0, no discovery).
    nodeAt: (datadir) => ({ ...execNodeOptions(settings, { datadir, networkId }), p2p: undefined }),
  };
}

/** attach and console: --jspath, --preload, --exec, --header, and the node's IPC socket. */
function consoleCommandOptions(settings: Settings): ConsoleCommandOptions {
  const datadir = settings.get<string>('datadir');
  return {
    repl: {
      jspath: settings.get<string>('jspath'),
      preload: settings.get<string[] | undefined>('preload') ?? [],
      historyFile: join(datadir, 'history'),
    },
    statement: settings.get<string | undefined>('exec'),
    headers: Object.fromEntries(settings.get<Array<[string, string]> | undefined>('header') ?? []),
    ipcEndpoint: ipcEndpoint(datadir, settings.get<string | undefined>('ipcpath')),
    ipcDisabled: settings.get<boolean>('ipcdisable'),
  };
}

/** All of tern-exec's options; throws a UsageError for flag combinations that cannot run. */
export function execOptions(settings: Settings): ExecOptions {
  checkExecObservabilitySettings(settings);
  // --graphql without --http stops the node's start (as geth, the sub-commands such as init do not check it).
  if (settings.subcommand === undefined) graphqlOptions(settings);
  const get = <T>(name: string): T => settings.get<T>(name);
  const datadir = get<string>('datadir');
  const node = execNodeOptions(settings);
  const { storage } = node;
  const passwordFile = nonEmpty(get<string | undefined>('password'));
  return {
    command: settings.subcommand?.name,
    args: settings.args,
    logger: execLoggerOptions(settings),
    kzg: { library: get<string>('crypto.kzg'), explicit: settings.source('crypto.kzg') !== 'default' },
    observability: execObservabilityOptions(settings),
    database: {
      datadir,
      ancient: get<string | undefined>('datadir.ancient'),
      era: resolveEraDir(datadir, get<string | undefined>('datadir.ancient'), get<string | undefined>('datadir.era')),
      engine: get<string | undefined>('db.engine'),
      cacheMB: storage.cache.databaseMB,
      fdLimit: get<number | undefined>('fdlimit'),
      remote: remoteDbOptions(settings),
    },
    chainSetup: chainSetupOptions(settings),
    networking: {
      maxPeers: get<number>('maxpeers'),
      noDiscover: get<boolean>('nodiscover'),
      syncMode: get<string>('syncmode'),
    },
    accounts: {
      keystoreDir: nonEmpty(get<string | undefined>('keystore')) ?? join(datadir, 'keystore'),
      lightKdf: get<boolean>('lightkdf'),
      ...(passwordFile ? { passwordFile } : {}),
    },
    node,
    dev: get<boolean>('dev') ? devOptions(settings) : undefined,
    import: { noPrefetch: get<boolean>('cache.noprefetch') },
    snapshot: { bloomFilterMB: get<number>('bloomfilter.size') },
    externalSigner: nonEmpty(get<string | undefined>('signer')?.trim()),
    hardwareWallets: { usb: get<boolean>('usb'), pcscdPath: nonEmpty(get<string | undefined>('pcscdpath')) },
    console: consoleCommandOptions(settings),
  };
}

/** Commands that read the chain only: the ones --remotedb serves (geth's chain readers over its remotedb). */
const REMOTEDB_COMMANDS = ['export', 'export-history'];

/**
 * --remotedb (with --header): the read-only commands read the chain from that node. A command that writes the
 * database is refused; the node itself serves its own --datadir (geth's node ignores --remotedb too).
 */
function remoteDbOptions(settings: Settings): { url: string; headers: Record<string, string> } | undefined {
  const url = nonEmpty(settings.get<string | undefined>('remotedb'));
  if (url === undefined) return undefined;
  const command = settings.subcommand?.name;
  if (command !== undefined && !REMOTEDB_COMMANDS.includes(command))
    throw new UsageError(
      `--remotedb serves the read-only commands (${REMOTEDB_COMMANDS.join(', ')}); ${command} needs the local database`,
    );
  return { url, headers: Object.fromEntries(settings.get<Array<[string, string]> | undefined>('header') ?? []) };
}

/** --graphql, --graphql.corsdomain, --graphql.vhosts: undefined when off; GraphQL lives on the HTTP-RPC listener, so
 * --graphql without --http stops the start (the seed: "GraphQL cannot start"). */
export function graphqlOptions(settings: Pick<Settings, 'get'>): GraphqlHttpOptions | undefined {
  if (!settings.get<boolean>('graphql')) return undefined;
  if (!settings.get<boolean>('http')) {
    throw new UsageError('GraphQL cannot start: --graphql is served on the HTTP-RPC server, enable it with --http');
  }
  return {
    corsDomains: settings.get<string[] | undefined>('graphql.corsdomain'),
    vhosts: settings.get<string[] | undefined>('graphql.vhosts'),
  };
}
