// Network-statistics reporting (--ethstats nodename:secret@host:port), speaking the ethstats WebSocket protocol as
// geth's ethstats service does: `{"emit": [topic, payload]}` messages — hello (login with the secret, answered by
// ready), block (on every new head), pending, stats, node-ping/latency, history on request. When the connection
// drops or the login fails it tries again after `reconnectMs`.
import { hostname, platform, release } from 'node:os';
import WebSocket from 'ws';
import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';

export interface EthstatsBlock {
  number: bigint;
  hash: string;
  parentHash: string;
  timestamp: bigint;
  miner: string;
  gasUsed: bigint;
  gasLimit: bigint;
  difficulty: bigint;
  transactions: string[];
  transactionsRoot: string;
  stateRoot: string;
}

/** What the reporter reads from the node. */
export interface EthstatsBackend {
  head(): EthstatsBlock;
  blockByNumber(n: bigint): EthstatsBlock | undefined;
  pendingCount(): number;
  peerCount(): number;
  syncing(): boolean;
  gasPrice(): bigint;
  networkId: string;
  chainId: string;
}

export interface EthstatsOptions {
  /** `nodename:secret@host:port` (host may carry a ws:// or wss:// scheme). */
  url: string;
  client: string;
  reconnectMs?: number;
  /** Full report (stats, pending, latency ping) period; geth's is 15 s. */
  reportMs?: number;
  /** How often the head is checked for a new block. */
  headPollMs?: number;
  /** A server that does not answer hello with ready in this time rejected the secret: hang up and retry. */
  loginTimeoutMs?: number;
}

export const ethstatsDefaults: Required<
  Pick<EthstatsOptions, 'reconnectMs' | 'reportMs' | 'headPollMs' | 'loginTimeoutMs'>
> = {
  reconnectMs: 10_000,
  reportMs: 15_000,
  headPollMs: 1000,
  loginTimeoutMs: 5000,
};

export interface EthstatsUrl {
  node: string;
  secret: string;
  /** The WebSocket address, `ws://host:port/api`. */
  ws: string;
}

/** Splits `nodename:secret@host:port`; UsageError when malformed. */
export function parseEthstatsUrl(url: string): EthstatsUrl {
  const at = url.lastIndexOf('@');
  const cred = at < 0 ? '' : url.slice(0, at);
  const colon = cred.indexOf(':');
  if (at < 0 || colon <= 0) throw new UsageError(`invalid --ethstats "${url}": expected nodename:secret@host:port`);
  let host = url.slice(at + 1);
  if (!/^wss?:\/\//.test(host)) host = `ws://${host}`;
  return { node: cred.slice(0, colon), secret: cred.slice(colon + 1), ws: `${host.replace(/\/+$/, '')}/api` };
}

const q = (v: bigint | number): string => String(v);

function blockJson(b: EthstatsBlock): Record<string, unknown> {
  return {
    number: Number(b.number),
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: q(b.timestamp),
    miner: b.miner,
    gasUsed: Number(b.gasUsed),
    gasLimit: Number(b.gasLimit),
    diff: q(b.difficulty),
    totalDiff: q(b.difficulty),
    transactions: b.transactions.map((hash) => ({ hash })),
    transactionsRoot: b.transactionsRoot,
    root: b.stateRoot,
    uncles: [],
  };
}

export class EthstatsReporter {
  readonly #opts: EthstatsOptions & typeof ethstatsDefaults;
  readonly #url: EthstatsUrl;
  readonly #backend: EthstatsBackend;
  readonly #logger: Logger;
  readonly #started = Date.now();
  #ws: WebSocket | undefined;
  #stopped = false;
  #timers: NodeJS.Timeout[] = [];
  #reconnect: NodeJS.Timeout | undefined;
  #lastHead: string | undefined;
  #pingSent = 0;
  #connected = false;

  constructor(opts: EthstatsOptions, deps: { backend: EthstatsBackend; logger: Logger; signal?: AbortSignal }) {
    this.#opts = { ...ethstatsDefaults, ...opts };
    this.#url = parseEthstatsUrl(opts.url);
    this.#backend = deps.backend;
    this.#logger = deps.logger;
    deps.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** True while logged in (the server answered hello with ready). */
  get connected(): boolean {
    return this.#connected;
  }

  start(): void {
    this.#logger.info('Starting ethstats reporting', { node: this.#url.node, server: this.#url.ws });
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#reconnect);
    this.#clearTimers();
    this.#ws?.terminate();
    this.#ws = undefined;
  }

  #clearTimers(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
  }

  #connect(): void {
    if (this.#stopped) return;
    const ws = new WebSocket(this.#url.ws, { handshakeTimeout: 5000 });
    this.#ws = ws;
    ws.on('open', () => {
      this.#hello();
      const login = setTimeout(() => {
        if (this.#ws === ws && !this.#connected) {
          this.#logger.warn('Ethstats server did not accept the login (wrong secret?)', { server: this.#url.ws });
          ws.terminate();
        }
      }, this.#opts.loginTimeoutMs);
      login.unref();
      this.#timers.push(login);
    });
    ws.on('message', (data) => this.#onMessage(String(data)));
    ws.on('error', (err) => this.#logger.debug('Ethstats connection error', { err: err.message }));
    ws.on('close', () => {
      if (this.#ws !== ws) return;
      const was = this.#connected;
      this.#connected = false;
      this.#clearTimers();
      this.#ws = undefined;
      if (this.#stopped) return;
      (was ? this.#logger.warn : this.#logger.debug).call(this.#logger, 'Ethstats connection lost, reconnecting', {
        server: this.#url.ws,
        in: `${this.#opts.reconnectMs / 1000}s`,
      });
      this.#reconnect = setTimeout(() => this.#connect(), this.#opts.reconnectMs);
      this.#reconnect.unref();
    });
  }

  #emit(topic: string, payload: Record<string, unknown>): void {
    const ws = this.#ws;
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ emit: [topic, { id: this.#url.node, ...payload }] }));
  }

  #hello(): void {
    const b = this.#backend;
    this.#emit('hello', {
      info: {
        name: this.#url.node,
        node: this.#opts.client,
        port: 0,
        net: b.networkId,
        protocol: 'eth/68',
        api: 'No',
        os: platform(),
        os_v: release(),
        client: '0.1.1',
        canUpdateHistory: true,
        contact: hostname(),
      },
      secret: this.#url.secret,
    });
  }

  #onMessage(text: string): void {
    // primus heartbeats arrive as plain strings.
    if (text.startsWith('primus::ping::')) {
      this.#ws?.send(JSON.stringify(`primus::pong::${text.slice('primus::ping::'.length)}`));
      return;
    }
    let msg: { emit?: [string, unknown?] };
    try {
      msg = JSON.parse(text) as { emit?: [string, unknown?] };
    } catch {
      return;
    }
    const [topic, payload] = msg.emit ?? [];
    if (topic === 'ready') {
      this.#onReady();
    } else if (topic === 'node-pong') {
      const latency = Math.round((Date.now() - this.#pingSent) / 2);
      this.#emit('latency', { latency: String(latency) });
    } else if (topic === 'history') {
      const list = (payload as { list?: unknown[] } | undefined)?.list ?? [];
      const history = list
        .map((n) => this.#backend.blockByNumber(BigInt(n as number)))
        .filter((b): b is EthstatsBlock => b !== undefined)
        .map(blockJson);
      this.#emit('history', { history });
    }
  }

  #onReady(): void {
    this.#connected = true;
    this.#logger.info('Ethstats connected', { server: this.#url.ws });
    this.#lastHead = undefined;
    this.#report();
    this.#timers.push(setInterval(() => this.#report(), this.#opts.reportMs));
    this.#timers.push(
      setInterval(() => {
        if (this.#backend.head().hash !== this.#lastHead) this.#block();
      }, this.#opts.headPollMs),
    );
    for (const t of this.#timers) t.unref();
  }

  #block(): void {
    const head = this.#backend.head();
    this.#lastHead = head.hash;
    this.#emit('block', { block: blockJson(head) });
  }

  #report(): void {
    this.#pingSent = Date.now();
    this.#emit('node-ping', { clientTime: new Date(this.#pingSent).toISOString() });
    this.#block();
    this.#emit('pending', { stats: { pending: this.#backend.pendingCount() } });
    const b = this.#backend;
    this.#emit('stats', {
      stats: {
        active: true,
        syncing: b.syncing(),
        mining: false,
        hashrate: 0,
        peers: b.peerCount(),
        gasPrice: Number(b.gasPrice()),
        uptime: 100,
        upSince: this.#started,
      },
    });
  }
}
