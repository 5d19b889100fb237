// --remotedb: geth's remote database (ethdb/remotedb), a read-only chain database whose reads are JSON-RPC calls to
// another node: debug_dbGet(key) for the key-value store, debug_dbAncient(kind, number) and debug_dbAncients() for
// the ancient store. tern's readers are synchronous (LMDB reads), so each call is made by a helper thread while
// this one waits on a shared flag (Atomics.wait), the way synckit turns async work synchronous. Writes and
// iteration are refused, as geth's remotedb refuses them; only the read-only commands (export, export-history)
// open it. The other node must be tern-exec (the keys are tern's schema) serving the debug namespace over HTTP(S),
// WS(S) or IPC.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  DbErrorCode,
  type IterateOptions,
  type KVEntry,
  type KVStore,
  type ReadSnapshot,
  type WriteBatch,
} from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import type { AncientReader, AncientTable, Freezer } from './freezer.js';
import { Database } from './open.js';

const RESPONSE_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

// The helper thread: one JSON-RPC call per message over the endpoint's transport (HTTP(S) per call; WS(S) and IPC
// over one connection kept open), the answer written to the shared buffer (length first). Plain CommonJS evaluated
// in the thread, so `ws` is required by the path resolved here.
const HELPER = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { url, transport, headers, wsPath, control, data } = workerData;
const flag = new Int32Array(control);
const view = new DataView(data);
const bytes = new Uint8Array(data);
let conn;
let pending;
function settle(text) {
  const p = pending;
  pending = undefined;
  if (p) p(text);
}
const failed = (e) => JSON.stringify({ transport: String((e && e.cause && e.cause.code) || (e && e.code) || (e && e.message) || e) });
function connect() {
  if (conn) return conn;
  conn = new Promise((resolve, reject) => {
    if (transport === 'ws') {
      const WebSocket = require(wsPath);
      const ws = new WebSocket(url, { headers, maxPayload: bytes.length });
      ws.on('open', () => resolve((text) => ws.send(text)));
      ws.on('message', (d) => settle(d.toString('utf8')));
      ws.on('error', (e) => { conn = undefined; reject(e); settle(failed(e)); });
      ws.on('close', () => { conn = undefined; settle(failed('connection closed')); });
    } else {
      const socket = net.createConnection(url);
      let buffered = '';
      socket.on('connect', () => resolve((text) => socket.write(text + '\\n')));
      socket.on('data', (d) => {
        buffered += d.toString('utf8');
        if (!buffered.endsWith('\\n')) return;
        try { JSON.parse(buffered); } catch { return; }
        const text = buffered;
        buffered = '';
        settle(text);
      });
      socket.on('error', (e) => { conn = undefined; reject(e); settle(failed(e)); });
      socket.on('close', () => { conn = undefined; settle(failed('connection closed')); });
    }
  });
  return conn;
}
async function exchange(body) {
  if (transport === 'http') {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return res.ok ? await res.text() : JSON.stringify({ transport: 'HTTP ' + res.status });
  }
  const send = await connect();
  return new Promise((resolve) => { pending = resolve; send(body); });
}
parentPort.on('message', async (body) => {
  let text;
  try {
    text = await exchange(body);
  } catch (e) {
    text = failed(e);
  }
  let out = Buffer.from(text);
  if (out.length > bytes.length - 4) out = Buffer.from(JSON.stringify({ transport: 'answer larger than 64 MiB' }));
  view.setUint32(0, out.length, true);
  bytes.set(out, 4);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

/** How geth's rpc.DialOptions reads an endpoint: http(s)://, ws(s)://, else a path to an IPC socket. */
export function remoteTransport(url: string): 'http' | 'ws' | 'ipc' {
  if (/^https?:\/\//i.test(url)) return 'http';
  if (/^wss?:\/\//i.test(url)) return 'ws';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url))
    throw new TernError(
      'REMOTEDB_URL',
      `--remotedb ${url}: tern reads a remote database over http(s)://, ws(s):// or an IPC socket path`,
    );
  return 'ipc';
}

/** Synchronous JSON-RPC (HTTP(S), WS(S) or IPC) through a helper thread. */
export class SyncRpcClient {
  readonly #worker: Worker;
  readonly #flag: Int32Array;
  readonly #data: SharedArrayBuffer;
  readonly url: string;
  #id = 0;

  constructor(endpoint: string, headers: Record<string, string> = {}) {
    // geth strips an "rpc:" or "ipc:" prefix before dialling.
    this.url = /^(rpc|ipc):/.test(endpoint) ? endpoint.slice(4) : endpoint;
    const transport = remoteTransport(this.url);
    const control = new SharedArrayBuffer(4);
    this.#data = new SharedArrayBuffer(RESPONSE_BYTES);
    this.#flag = new Int32Array(control);
    const wsPath = createRequire(import.meta.url).resolve('ws');
    this.#worker = new Worker(HELPER, {
      eval: true,
      workerData: { url: this.url, transport, headers, wsPath, control, data: this.#data },
    });
    this.#worker.unref();
  }

  call<T>(method: string, params: unknown[]): T {
    Atomics.store(this.#flag, 0, 0);
    this.#worker.postMessage(JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }));
    if (Atomics.wait(this.#flag, 0, 0, TIMEOUT_MS) === 'timed-out')
      throw new TernError('REMOTEDB_TIMEOUT', `remote database ${this.url} did not answer ${method} in 30 s`);
    const length = new DataView(this.#data).getUint32(0, true);
    const text = Buffer.from(new Uint8Array(this.#data, 4, length)).toString('utf8');
    let msg: { result?: T; error?: { message?: string }; transport?: string };
    try {
      msg = JSON.parse(text);
    } catch {
      throw new TernError('REMOTEDB_PROTOCOL', `remote database ${this.url} answered ${method} with non-JSON`);
    }
    if (msg.transport !== undefined)
      throw new TernError('REMOTEDB_UNREACHABLE', `remote database ${this.url}: ${msg.transport}`);
    if (msg.error !== undefined) throw new TernError('REMOTEDB_ERROR', `${method}: ${msg.error.message ?? 'error'}`);
    return msg.result as T;
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const fromHex = (s: string) => new Uint8Array(Buffer.from(s.slice(2), 'hex'));
const NOT_FOUND = /not found/i;

function readonly(what: string): never {
  throw new TernError(DbErrorCode.readonly, `the remote database is read-only: ${what} is not supported`);
}

/** The key-value half: debug_dbGet; a key the remote node lacks reads as undefined. */
export class RemoteKVStore implements KVStore, ReadSnapshot {
  constructor(private readonly rpc: SyncRpcClient) {}

  get(key: Uint8Array): Uint8Array | undefined {
    try {
      return fromHex(this.rpc.call<string>('debug_dbGet', [hex(key)]));
    } catch (err) {
      if (err instanceof TernError && err.code === 'REMOTEDB_ERROR' && NOT_FOUND.test(err.message)) return undefined;
      throw err;
    }
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  iterate(_opts?: IterateOptions): IterableIterator<KVEntry> {
    return readonly('iteration');
  }

  batch(): WriteBatch {
    return readonly('writing');
  }

  /** Every read goes to the remote node's current state: the snapshot is the store itself. */
  snapshot(): ReadSnapshot {
    return this;
  }

  release(): void {}

  async close(): Promise<void> {
    await this.rpc.close();
  }
}

/** The ancient half: debug_dbAncients and debug_dbAncient. */
export class RemoteAncients implements AncientReader {
  constructor(private readonly rpc: SyncRpcClient) {}

  ancients(): number {
    return Number(this.rpc.call<number | string>('debug_dbAncients', []));
  }

  ancient(table: AncientTable, number: number): Uint8Array | undefined {
    try {
      return fromHex(this.rpc.call<string>('debug_dbAncient', [table, number]));
    } catch (err) {
      if (err instanceof TernError && err.code === 'REMOTEDB_ERROR' && NOT_FOUND.test(err.message)) return undefined;
      throw err;
    }
  }

  async close(): Promise<void> {}
}

/**
 * A Database whose reads go to the node at `url`. Only read paths reach the ancient store here (the read-only
 * commands), so the remote reader stands in for the freezer.
 */
export function openRemoteDatabase(url: string, headers: Record<string, string>): Database {
  const rpc = new SyncRpcClient(url, headers);
  return new Database('memory', new RemoteKVStore(rpc), new RemoteAncients(rpc) as unknown as Freezer, undefined);
}
