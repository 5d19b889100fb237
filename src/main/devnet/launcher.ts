// tern-devnet's orchestration: writes the genesis files, rollup.json and JWT secrets into the work directory, starts
// layer 1 (tern-exec --dev), a sequencer pair, the batcher and replica pairs on free loopback ports, waits for each
// to answer, writes devnet.json, and stops everything in reverse order — on request or when any child dies. A pair
// is two processes (tern-exec, tern-node over HTTP) or, with `engine: 'in-process'`, one tern-pair process.
// A role whose program has not built the flags it needs is not started; it is listed under `missing`.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TernError } from '../common/errors.js';
import { accountFor, devAccounts, seedL1DeveloperKeystore } from './accounts.js';
import { DA_SERVER_NAME, daServerArgs, devnetAltDaSection } from './altDa.js';
import { anvilArgs, type BeaconProxy, startBeaconProxy } from './anvil.js';
import { builtArgs, type Capabilities, type Role } from './capabilities.js';
import { type FaultProxy, type Faults, startFaultProxy } from './faultProxy.js';
import { genesisBlockId, L1_PORTAL_ADDRESS, l1GenesisJson, l2GenesisJson, type ScheduledUpgrades } from './genesis.js';
import { type EngineP2P, engineP2P, type NodeP2P, nodeP2P } from './p2p.js';
import { freePorts } from './ports.js';
import { describeExit, type ExitInfo, ManagedProcess, waitReady } from './process.js';
import { engineArgs, rollupNodeArgs } from './roleArgs.js';
import { devnetRollupJson } from './rollupConfig.js';
import { getJson, rpcCall } from './rpc.js';

export interface DevnetOptions {
  workdir: string;
  /** What to do with a work directory that already has files in it. */
  existing: 'fail' | 'clean' | 'reuse';
  replicas: number;
  /** L2 block time (rollup.json block_time), seconds. */
  blockTime: number;
  /** L1 --dev.period (anvil: --block-time), seconds. */
  l1BlockTime: number;
  /** The layer-1 program (default tern-exec --dev); anvil needs `programs.anvil`. */
  l1Program?: 'tern-exec' | 'anvil';
  dataAvailability: 'blobs' | 'calldata' | 'altda';
  /** rollup.json seq_window_size (L1 blocks): past it without batches, replicas derive deposit-only blocks. */
  seqWindow: number;
  jovian: boolean;
  /** Isthmus at this L2 block (its timestamp) on a Holocene genesis instead of at genesis; excludes `jovian`. */
  isthmusAt?: number | undefined;
  /** Jovian at this L2 block, at or after `isthmusAt` (which it needs). */
  jovianAt?: number | undefined;
  l2ChainId: bigint;
  host: string;
  readyTimeoutMs: number;
  /** How rollup nodes reach their engine: over HTTP (two processes, the default) or in one tern-pair process. */
  engine?: 'http' | 'in-process';
  /** Command prefixes of the programs, e.g. [node, bin/tern-exec.js]; `pair` is needed for in-process. */
  programs: {
    exec: readonly string[];
    node: readonly string[];
    batcher: readonly string[];
    pair?: readonly string[];
    anvil?: readonly string[];
    /** tern-da-server (--da altda). */
    daServer?: readonly string[];
  };
  capabilities: Capabilities;
  /**
   * Replicas read layer 1 (RPC and beacon) through fault proxies with these faults (latency, 429/5xx, resets, cut
   * answers): the reliability suite's flaky L1. The sequencer and the batcher use layer 1 directly.
   */
  replicaFaults?: Faults | undefined;
}

export interface DevnetDeps {
  /** One line of user-facing output. */
  print: (line: string) => void;
}

export interface NodeInfo {
  name: string;
  role: 'sequencer' | 'replica';
  nodeRpc: string | null;
  execRpc: string;
  engine: string;
  metrics: string | null;
  jwtSecret: string;
  /** The rollup node's P2P identity and listen address; null when this build cannot run P2P. */
  p2p: NodeP2P | null;
  /** The engine's devp2p identity (the engines peer with each other); null when not built. */
  elP2P?: EngineP2P | null | undefined;
  /** In-process: one tern-pair process, so both pids (and both logs) are the same. */
  pids: { exec?: number; node?: number };
  logs: { exec: string; node: string };
}

export interface DevnetInfo {
  workdir: string;
  rollupConfig: string;
  l1Genesis: string;
  l2Genesis: string;
  l1: {
    rpc: string;
    beacon: string;
    chainId: number;
    genesis: string;
    pid?: number;
    log: string;
    /** Absent in devnet.json files written before anvil was supported: tern-exec. */
    program?: 'tern-exec' | 'anvil';
  };
  l2: { chainId: number; genesis: string; blockTime: number };
  nodes: NodeInfo[];
  batcher: { pid?: number; log: string; address: string; dataAvailability: string } | null;
  /** The DA server (--da altda): its own process; `command` starts it again after it was stopped. */
  daServer?: { url: string; pid?: number | undefined; command: string[] } | undefined;
  accounts: Array<{ role: string; address: string; privateKey: string }>;
  /** What this build cannot start yet, in words; empty when the whole network runs. */
  missing: string[];
}

const FILES = {
  l1Genesis: 'l1-genesis.json',
  l2Genesis: 'l2-genesis.json',
  rollup: 'rollup.json',
  devnet: 'devnet.json',
} as const;

const L1_CHAIN_ID = 1337;
/** Per rollup node: engine HTTP, engine auth, node RPC, metrics, P2P TCP. */
const PORTS_PER_NODE = 6;
const L2_GAS_LIMIT = 30_000_000n;

function fail(code: string, message: string): never {
  throw new TernError(code, message);
}

export class Devnet {
  readonly #procs: ManagedProcess[] = [];
  /** Processes being restarted on purpose: their exit is not a death. */
  readonly #restarting = new Set<ManagedProcess>();
  #stopping: Promise<void> | undefined;
  #beaconProxy: BeaconProxy | undefined;
  #faultProxies: { l1Rpc: FaultProxy; beacon: FaultProxy } | undefined;
  #info: DevnetInfo | undefined;
  #resolveDeath!: (d: { name: string; exit: ExitInfo }) => void;
  /** Resolves when a child dies on its own (not while stopping). */
  readonly died: Promise<{ name: string; exit: ExitInfo }>;

  constructor(
    readonly opts: DevnetOptions,
    private readonly deps: DevnetDeps,
  ) {
    this.died = new Promise((r) => {
      this.#resolveDeath = r;
    });
  }

  get info(): DevnetInfo | undefined {
    return this.#info;
  }

  /** The replicas' fault proxies (with their counts) when `replicaFaults` is set. */
  get faultProxies(): { l1Rpc: FaultProxy; beacon: FaultProxy } | undefined {
    return this.#faultProxies;
  }

  get processes(): readonly ManagedProcess[] {
    return this.#procs;
  }

  #path(...p: string[]): string {
    return join(this.opts.workdir, ...p);
  }

  /** Prepares the directory, starts every buildable role, writes devnet.json. Stops what it started on failure. */
  async start(): Promise<DevnetInfo> {
    try {
      return await this.#start();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  async #start(): Promise<DevnetInfo> {
    const o = this.opts;
    const anvil = o.l1Program === 'anvil';
    if (anvil && o.existing === 'reuse') {
      fail(
        'DEVNET_UNSUPPORTED',
        '--reuse with --l1 anvil: anvil keeps its chain in memory, there is no layer 1 to continue',
      );
    }
    if (anvil && o.programs.anvil === undefined) fail('DEVNET_UNSUPPORTED', '--l1 anvil: no anvil program given');
    if (o.engine === 'in-process' && o.programs.pair === undefined) {
      fail('DEVNET_UNSUPPORTED', '--engine in-process: no tern-pair program given');
    }
    const reuse = this.#prepareWorkdir();
    mkdirSync(this.#path('logs'), { recursive: true });
    const caps = o.capabilities;
    const missing: string[] = [];
    const why = (role: Role, what: string): boolean => {
      const m = caps.missing(role);
      if (m.length === 0) return true;
      missing.push(`${what}: not built yet (needs ${m.map((f) => `--${f}`).join(', ')})`);
      return false;
    };
    if (
      (!anvil && !why('l1', 'layer 1 (tern-exec --dev)')) ||
      !why('engine', 'execution engines (tern-exec --authrpc)')
    ) {
      fail('DEVNET_UNSUPPORTED', `cannot start the devnet: ${missing.join('; ')}`);
    }

    const names = ['sequencer', ...Array.from({ length: o.replicas }, (_, i) => `replica-${i + 1}`)];
    const ports = await freePorts(3 + names.length * PORTS_PER_NODE, o.host);
    const url = (port: number) => `http://${o.host}:${port}`;
    const [l1Http, l1Beacon, l1Auth] = ports as [number, number, number];

    // Layer 1. For anvil, rollup.json is written once anvil tells its genesis hash.
    const files = reuse ? this.#loadFiles() : this.#writeFiles(!anvil);
    const l2Id = files.l2Id;
    let l1Id: { hash: string; number: number; time: number };
    let l1: ManagedProcess;
    let beacon: string;
    const l1Rpc = url(l1Http);
    if (anvil) {
      l1 = this.#spawn(
        'l1',
        o.programs.anvil as readonly string[],
        anvilArgs({ genesisFile: this.#path(FILES.l1Genesis), host: o.host, port: l1Http, blockTime: o.l1BlockTime }),
      );
      await waitReady(l1, async () => (await rpcCall<string>(l1Rpc, 'eth_chainId')) !== undefined, {
        timeoutMs: o.readyTimeoutMs,
        what: `JSON-RPC at ${l1Rpc}`,
      });
      l1Id = await this.#anvilGenesis(l1Rpc, files.l1Json as Record<string, unknown>);
      this.#writeRollup(l1Id, l2Id);
      this.#beaconProxy = await startBeaconProxy({ rpc: l1Rpc, host: o.host, port: l1Beacon });
      beacon = this.#beaconProxy.url;
      await waitReady(l1, async () => (await getJson(`${beacon}/eth/v1/beacon/genesis`)) !== undefined, {
        timeoutMs: o.readyTimeoutMs,
        what: `beacon API (proxy) at ${beacon}`,
      });
      this.deps.print(`  layer 1 (anvil) answers at ${l1Rpc} (beacon proxy ${beacon}), genesis ${l1Id.hash}`);
      this.deps.print(
        '  NOTE: layer 1 is anvil, so the rollup nodes run with --l1.trustrpc: anvil computes a wrong transactions ' +
          'root for blocks with blob transactions, and a verifying node would reject them',
      );
    } else {
      l1Id = files.l1Id;
      const l1Dir = this.#path('l1');
      if (!existsSync(join(l1Dir, 'chaindata'))) await this.#init('l1', l1Dir, this.#path(FILES.l1Genesis));
      seedL1DeveloperKeystore(join(l1Dir, 'keystore'));
      l1 = this.#spawn('l1', o.programs.exec, [
        '--dev',
        `--datadir=${l1Dir}`,
        `--dev.period=${o.l1BlockTime}`,
        `--dev.beacon.addr=${o.host}`,
        `--dev.beacon.port=${l1Beacon}`,
        '--http',
        `--http.addr=${o.host}`,
        `--http.port=${l1Http}`,
        // dev: dev_reorg, for tests of layer-1 reorgs.
        '--http.api=eth,net,web3,txpool,debug,dev',
        `--authrpc.addr=${o.host}`,
        `--authrpc.port=${l1Auth}`,
        ...builtArgs(caps, 'exec', [['ipcdisable'], ['lightkdf']]),
      ]);
      beacon = url(l1Beacon);
      await waitReady(l1, async () => (await rpcCall<string>(l1Rpc, 'eth_chainId')) !== undefined, {
        timeoutMs: o.readyTimeoutMs,
        what: `JSON-RPC at ${l1Rpc}`,
      });
      await waitReady(l1, async () => (await getJson(`${beacon}/eth/v1/beacon/genesis`)) !== undefined, {
        timeoutMs: o.readyTimeoutMs,
        what: `beacon API at ${beacon}`,
      });
      await this.#checkGenesis('l1', l1Rpc, l1Id.hash);
      this.deps.print(`  layer 1 answers at ${l1Rpc} (beacon ${beacon})`);
    }

    // One rollup node per name: its ports, JWT secret and logs.
    const nodes: NodeInfo[] = names.map((name, i) => {
      const base = 3 + i * PORTS_PER_NODE;
      const jwtSecret = this.#path(`jwt-${name}.txt`);
      if (!existsSync(jwtSecret)) writeFileSync(jwtSecret, `0x${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
      const p2p = caps.built('node', 'p2p.static')
        ? nodeP2P(this.#path(`p2p-${name}.txt`), o.host, ports[base + 4] as number)
        : null;
      const elP2P = caps.built('exec', 'bootnodes')
        ? engineP2P(this.#path(`nodekey-${name}.txt`), o.host, ports[base + 5] as number)
        : null;
      return {
        name,
        role: i === 0 ? 'sequencer' : 'replica',
        nodeRpc: url(ports[base + 2] as number),
        execRpc: url(ports[base] as number),
        engine: url(ports[base + 1] as number),
        metrics: url(ports[base + 3] as number),
        jwtSecret,
        p2p,
        elP2P,
        pids: {},
        logs: { exec: this.#path('logs', `${name}-exec.log`), node: this.#path('logs', `${name}-node.log`) },
      };
    });
    // Rollup nodes: with the engine in-process, each runs in its engine's process (tern-pair).
    const sequencerOk = why('sequencerNode', 'sequencer (tern-node --sequencer.enabled)');
    const replicaOk = why('replicaNode', 'replica rollup nodes (tern-node following layer 1)');
    const nodeOk = (n: NodeInfo) => (n.role === 'sequencer' ? sequencerOk : replicaOk);
    const inProcess = o.engine === 'in-process';
    const altDa = o.dataAvailability === 'altda';
    let daServer: DevnetInfo['daServer'];
    if (altDa) {
      if (o.programs.daServer === undefined) fail('DEVNET_UNSUPPORTED', '--da altda: no tern-da-server program given');
      // Its own process, which may stop and start again (a DA layer outage is something the rollup rides out).
      const [daPort] = (await freePorts(1, o.host)) as [number];
      const args = daServerArgs(o.host, daPort, this.#path('da'));
      const p = this.#spawn(DA_SERVER_NAME, o.programs.daServer, args);
      const daUrl = url(daPort);
      await waitReady(p, async () => (await fetch(`${daUrl}/get/0x00`).catch(() => undefined))?.status === 404, {
        timeoutMs: o.readyTimeoutMs,
        what: `DA server at ${daUrl}`,
      });
      daServer = { url: daUrl, pid: p.pid, command: [...o.programs.daServer, ...args] };
      this.deps.print(`  DA server answers at ${daUrl}`);
    }
    if (o.replicaFaults !== undefined) {
      this.#faultProxies = {
        l1Rpc: await startFaultProxy(l1Rpc, o.replicaFaults, { host: o.host }),
        beacon: await startFaultProxy(beacon, o.replicaFaults, { host: o.host }),
      };
      this.deps.print(
        `  replicas read layer 1 through fault proxies: RPC ${this.#faultProxies.l1Rpc.url}, beacon ${this.#faultProxies.beacon.url}`,
      );
    }
    const nodeContext = {
      replicaL1:
        this.#faultProxies === undefined
          ? undefined
          : { l1Rpc: this.#faultProxies.l1Rpc.url, beacon: this.#faultProxies.beacon.url },
      daServer: daServer?.url,
      l1Rpc,
      beacon,
      rollupConfig: this.#path(FILES.rollup),
      l1Genesis: this.#path(FILES.l1Genesis),
      host: o.host,
      l1BlockTime: o.l1BlockTime,
      anvil,
      inProcess,
      caps,
    };
    for (const n of nodes) {
      if (!nodeOk(n)) {
        n.nodeRpc = null;
        n.metrics = null;
      } else if (!caps.built('node', 'metrics.enabled')) {
        n.metrics = null;
      }
    }
    const p2pPeers = nodes.flatMap((n) => (n.nodeRpc !== null && n.p2p !== null ? [n.p2p.multiaddr] : []));
    const nodeArgsContext = { ...nodeContext, p2pPeers };
    const paired = (n: NodeInfo) => inProcess && n.nodeRpc !== null;

    const enodes = nodes.flatMap((n) => (n.elP2P ? [n.elP2P.enode] : []));
    // Execution engines, one per node, started together (in-process: the tern-pair processes).
    const engines = await Promise.all(
      nodes.map(async (n) => {
        const dir = this.#path(n.name, 'exec');
        if (!existsSync(join(dir, 'chaindata'))) await this.#init(`${n.name}-exec`, dir, this.#path(FILES.l2Genesis));
        const exec = engineArgs(n, dir, o.host, caps, enodes);
        if (!paired(n)) return this.#spawn(`${n.name}-exec`, o.programs.exec, exec);
        const nodeDir = this.#path(n.name, 'node');
        mkdirSync(nodeDir, { recursive: true });
        const p = this.#spawn(
          `${n.name}-pair`,
          o.programs.pair as readonly string[],
          [...rollupNodeArgs(n, nodeArgsContext), '--', ...exec],
          nodeDir,
        );
        n.logs = { exec: p.spec.logFile, node: p.spec.logFile };
        return p;
      }),
    );
    await Promise.all(
      engines.map((p, i) =>
        waitReady(p, async () => (await rpcCall<string>((nodes[i] as NodeInfo).execRpc, 'eth_chainId')) !== undefined, {
          timeoutMs: o.readyTimeoutMs,
          what: `JSON-RPC at ${(nodes[i] as NodeInfo).execRpc}`,
        }),
      ),
    );
    for (const [i, n] of nodes.entries()) {
      n.pids.exec = engines[i]?.pid;
      await this.#checkGenesis(`${n.name}-exec`, n.execRpc, l2Id.hash);
    }
    this.deps.print(
      `  ${engines.length} execution engine(s) answer${inProcess ? ' (rollup nodes in-process, tern-pair)' : ''}, L2 genesis ${l2Id.hash}`,
    );

    const nodeProcs: Array<[NodeInfo, ManagedProcess]> = [];
    for (const [i, n] of nodes.entries()) {
      if (n.nodeRpc === null) continue;
      if (paired(n)) {
        nodeProcs.push([n, engines[i] as ManagedProcess]);
        continue;
      }
      const dir = this.#path(n.name, 'node');
      mkdirSync(dir, { recursive: true });
      nodeProcs.push([n, this.#spawn(`${n.name}-node`, o.programs.node, rollupNodeArgs(n, nodeArgsContext), dir)]);
    }
    await Promise.all(
      nodeProcs.map(([n, p]) =>
        waitReady(p, async () => (await rpcCall(n.nodeRpc as string, 'optimism_syncStatus')) !== undefined, {
          timeoutMs: o.readyTimeoutMs,
          what: `rollup RPC at ${n.nodeRpc}`,
        }),
      ),
    );
    for (const [n, p] of nodeProcs) n.pids.node = p.pid;
    if (nodeProcs.length > 0) this.deps.print(`  ${nodeProcs.length} rollup node(s) answer`);
    for (const [n] of nodeProcs) {
      if (n.p2p !== null) this.deps.print(`  ${n.name} P2P: ${n.p2p.multiaddr}`);
      if (n.elP2P) this.deps.print(`  ${n.name} engine devp2p: ${n.elP2P.enode}`);
    }

    // Batcher: it batches the sequencer's blocks, so it needs the sequencer's rollup node.
    let batcher: DevnetInfo['batcher'] = null;
    const seq = nodes[0] as NodeInfo;
    if (why('batcher', 'batcher (tern-batcher)')) {
      if (seq.nodeRpc === null) {
        missing.push('batcher: not started, it needs the sequencer rollup node');
      } else {
        const b = accountFor('batcher');
        const proc = this.#spawn('batcher', o.programs.batcher, [
          `--l1-eth-rpc=${l1Rpc}`,
          `--l2-eth-rpc=${seq.execRpc}`,
          `--rollup-rpc=${seq.nodeRpc}`,
          `--private-key=${b.privateKey}`,
          `--data-availability-type=${altDa ? 'calldata' : o.dataAvailability}`,
          ...(daServer ? ['--altda.enabled=true', `--altda.da-server=${daServer.url}`] : []),
          ...builtArgs(caps, 'batcher', [
            ['rollup.config', this.#path(FILES.rollup)],
            ['poll-interval', '1s'],
            ['num-confirmations', '1'],
            ['max-channel-duration', '2'],
          ]),
        ]);
        // No RPC to poll: ready once it has stayed up for a moment.
        const since = Date.now();
        await waitReady(proc, async () => Date.now() - since >= 1500, { timeoutMs: 5000, what: 'a steady start' });
        batcher = {
          pid: proc.pid,
          log: proc.spec.logFile,
          address: b.address,
          dataAvailability: o.dataAvailability,
        };
      }
    }

    const info: DevnetInfo = {
      workdir: resolve(o.workdir),
      rollupConfig: resolve(this.#path(FILES.rollup)),
      l1Genesis: resolve(this.#path(FILES.l1Genesis)),
      l2Genesis: resolve(this.#path(FILES.l2Genesis)),
      l1: {
        rpc: l1Rpc,
        beacon,
        chainId: L1_CHAIN_ID,
        genesis: l1Id.hash,
        pid: l1.pid,
        log: l1.spec.logFile,
        program: anvil ? 'anvil' : 'tern-exec',
      },
      l2: { chainId: Number(o.l2ChainId), genesis: l2Id.hash, blockTime: o.blockTime },
      nodes,
      batcher,
      ...(daServer ? { daServer } : {}),
      accounts: devAccounts().map((a) => ({ ...a })),
      missing,
    };
    writeFileSync(this.#path(FILES.devnet), `${JSON.stringify(info, null, 2)}\n`);
    this.#info = info;
    return info;
  }

  /** Returns whether existing files are reused. */
  #prepareWorkdir(): boolean {
    const dir = this.opts.workdir;
    const entries = existsSync(dir) ? readdirSync(dir) : [];
    if (entries.length > 0) {
      if (this.opts.existing === 'clean') {
        for (const e of entries) rmSync(join(dir, e), { recursive: true, force: true });
      } else if (this.opts.existing === 'reuse') {
        if (existsSync(this.#path(FILES.rollup))) return true;
        fail('DEVNET_WORKDIR', `${dir} has files but no ${FILES.rollup} to reuse; choose --clean or another --workdir`);
      } else {
        fail('DEVNET_WORKDIR', `${dir} is not empty: pass --clean to start over or --reuse to continue its chains`);
      }
    }
    mkdirSync(dir, { recursive: true });
    return false;
  }

  /** Writes both genesis files, and rollup.json unless `rollup` is false (anvil: its genesis hash comes later). */
  #writeFiles(rollup: boolean): {
    l1Id: { hash: string; number: number; time: number };
    l2Id: { hash: string; number: number; time: number };
    l1Json: Record<string, unknown>;
  } {
    const o = this.opts;
    // Start the L1 a slot in the past so its first block is sealed right away.
    const time = Math.floor(Date.now() / 1000) - o.l1BlockTime;
    const l1Json = l1GenesisJson({ timestamp: time, altDa: o.dataAvailability === 'altda' });
    const l2Json = l2GenesisJson({
      chainId: o.l2ChainId,
      timestamp: time,
      gasLimit: L2_GAS_LIMIT,
      jovian: o.jovian,
      scheduled: this.#scheduled(),
    });
    const l1Id = genesisBlockId(l1Json);
    const l2Id = genesisBlockId(l2Json);
    this.#write(FILES.l1Genesis, l1Json);
    this.#write(FILES.l2Genesis, l2Json);
    if (rollup) this.#writeRollup(l1Id, l2Id);
    return { l1Id, l2Id, l1Json };
  }

  #write(file: string, v: unknown): void {
    writeFileSync(this.#path(file), `${JSON.stringify(v, null, 2)}\n`);
  }

  #writeRollup(
    l1Id: { hash: string; number: number; time: number },
    l2Id: { hash: string; number: number; time: number },
  ): void {
    const o = this.opts;
    const rollup = devnetRollupJson({
      l1: l1Id,
      l2: l2Id,
      l1ChainId: BigInt(L1_CHAIN_ID),
      l2ChainId: o.l2ChainId,
      blockTime: o.blockTime,
      batcher: accountFor('batcher').address,
      gasLimit: L2_GAS_LIMIT,
      jovian: o.jovian,
      scheduled: this.#scheduled(),
      seqWindowSize: o.seqWindow,
      altDa: o.dataAvailability === 'altda' ? devnetAltDaSection() : undefined,
    });
    this.#write(FILES.rollup, rollup);
  }

  /** --isthmus-at/--jovian-at as seconds after L2 genesis (block n is n block times after it). */
  #scheduled(): ScheduledUpgrades | undefined {
    const o = this.opts;
    if (o.isthmusAt === undefined) {
      if (o.jovianAt !== undefined) throw new Error('Jovian after genesis needs Isthmus after genesis too');
      return undefined;
    }
    return {
      isthmus: o.isthmusAt * o.blockTime,
      jovian: o.jovianAt === undefined ? undefined : o.jovianAt * o.blockTime,
    };
  }

  #loadFiles(): {
    l1Id: { hash: string; number: number; time: number };
    l2Id: { hash: string; number: number; time: number };
    l1Json: Record<string, unknown>;
  } {
    const read = (f: string) => JSON.parse(readFileSync(this.#path(f), 'utf8')) as Record<string, unknown>;
    const l1Json = read(FILES.l1Genesis);
    return { l1Id: genesisBlockId(l1Json), l2Id: genesisBlockId(read(FILES.l2Genesis)), l1Json };
  }

  /**
   * anvil's block 0, checked against the genesis file it was given: same chain id, time and funded accounts, and the
   * portal's code (so `--init` kept the alloc). Returns its id for rollup.json.
   */
  async #anvilGenesis(
    rpc: string,
    l1Json: Record<string, unknown>,
  ): Promise<{ hash: string; number: number; time: number }> {
    const block = await rpcCall<{ hash: string; timestamp: string } | null>(rpc, 'eth_getBlockByNumber', [
      '0x0',
      false,
    ]);
    if (!block) fail('DEVNET_GENESIS', 'anvil has no block 0');
    const want = Number(l1Json.timestamp as string);
    if (Number(block.timestamp) !== want) {
      fail('DEVNET_GENESIS', `anvil's genesis time is ${Number(block.timestamp)}, the genesis file says ${want}`);
    }
    const chainId = Number(await rpcCall<string>(rpc, 'eth_chainId'));
    if (chainId !== L1_CHAIN_ID) fail('DEVNET_GENESIS', `anvil runs chain ${chainId}, not ${L1_CHAIN_ID}`);
    const code = await rpcCall<string>(rpc, 'eth_getCode', [L1_PORTAL_ADDRESS, '0x0']);
    if (code === '0x' || code === '') fail('DEVNET_GENESIS', `anvil has no code at the portal ${L1_PORTAL_ADDRESS}`);
    return { hash: block.hash, number: 0, time: want };
  }

  async #init(name: string, datadir: string, genesis: string): Promise<void> {
    if (this.#stopping !== undefined) fail('DEVNET_ABORTED', `not initialising ${name}: the devnet is stopping`);
    const p = new ManagedProcess({
      name: `${name}-init`,
      command: this.opts.programs.exec[0] as string,
      args: [...this.opts.programs.exec.slice(1), 'init', `--datadir=${datadir}`, genesis],
      logFile: this.#path('logs', `${name}-init.log`),
    });
    p.start();
    const exit = await p.exited;
    if (exit.code !== 0) {
      fail(
        'DEVNET_INIT',
        `tern-exec init for ${name} ${describeExit(exit)}; last lines of ${p.spec.logFile}:\n${p.tail()}`,
      );
    }
  }

  async #checkGenesis(name: string, rpc: string, want: string): Promise<void> {
    const block = await rpcCall<{ hash?: string } | null>(rpc, 'eth_getBlockByNumber', ['0x0', false]);
    if (block?.hash !== want) {
      fail('DEVNET_GENESIS', `${name} has genesis ${block?.hash}, but rollup.json expects ${want}`);
    }
  }

  #spawn(name: string, program: readonly string[], args: string[], cwd?: string): ManagedProcess {
    // stop() may run while start() is still waiting for a process: nothing new may start after it.
    if (this.#stopping !== undefined) fail('DEVNET_ABORTED', `not starting ${name}: the devnet is stopping`);
    return this.#launch(
      new ManagedProcess({
        name,
        command: program[0] as string,
        args: [...program.slice(1), ...args],
        logFile: this.#path('logs', `${name}.log`),
        ...(cwd === undefined ? {} : { cwd }),
      }),
    );
  }

  #launch(p: ManagedProcess): ManagedProcess {
    p.start();
    this.#procs.push(p);
    void p.exited.then((exit) => {
      // The DA server may be stopped on purpose (an outage the rollup waits out): not a death of the devnet.
      if (this.#stopping === undefined && !this.#restarting.has(p) && p.spec.name !== DA_SERVER_NAME) {
        this.#resolveDeath({ name: p.spec.name, exit });
      }
    });
    return p;
  }

  /**
   * Stops one process (SIGKILL when `kill`, else SIGTERM with the grace period) and starts it again with the same
   * command line and log file; pids in devnet.json are updated. For crash-and-resume tests and manual use.
   */
  async restart(name: string, opts: { kill?: boolean } = {}): Promise<ManagedProcess> {
    const i = this.#procs.findIndex((p) => p.spec.name === name);
    const old = this.#procs[i];
    if (old === undefined) fail('DEVNET_NO_PROCESS', `no process named ${name}`);
    if (this.#stopping !== undefined) fail('DEVNET_ABORTED', `not restarting ${name}: the devnet is stopping`);
    this.#restarting.add(old);
    await (opts.kill ? old.kill() : old.stop());
    this.#procs.splice(i, 1);
    const p = this.#launch(new ManagedProcess(old.spec));
    this.#updatePid(name, p.pid);
    return p;
  }

  #updatePid(name: string, pid: number | undefined): void {
    const info = this.#info;
    if (!info) return;
    if (name === 'l1') info.l1.pid = pid;
    else if (name === 'batcher' && info.batcher) info.batcher.pid = pid;
    for (const n of info.nodes) {
      if (name === `${n.name}-exec` || name === `${n.name}-pair`) n.pids.exec = pid;
      if (name === `${n.name}-node` || name === `${n.name}-pair`) n.pids.node = pid;
    }
    writeFileSync(this.#path(FILES.devnet), `${JSON.stringify(info, null, 2)}\n`);
  }

  /**
   * Stops every child, consumers before what they read: batcher, rollup nodes (and tern-pair processes, which stop
   * their tern-node before their tern-exec), engines, layer 1. Idempotent.
   */
  stop(graceMs = 10_000): Promise<void> {
    const tier = (name: string) =>
      name === 'batcher' ? 0 : name.endsWith('-node') || name.endsWith('-pair') ? 1 : name.endsWith('-exec') ? 2 : 3;
    this.#stopping ??= (async () => {
      for (let t = 0; t <= 3; t++) {
        await Promise.all(this.#procs.filter((p) => tier(p.spec.name) === t).map((p) => p.stop(graceMs)));
      }
      await this.#beaconProxy?.close();
      await this.#faultProxies?.l1Rpc.close();
      await this.#faultProxies?.beacon.close();
    })();
    return this.#stopping;
  }
}
