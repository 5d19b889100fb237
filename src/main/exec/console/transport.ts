// How the console reaches a node: its IPC socket (the default, as geth's attach), or HTTP/WS through the shared
// JSON-RPC client with the operator's --header values. Remote errors become Error(message) so the REPL prints
// them as geth's console does ("Error: ...").
import { connect, type Socket } from 'node:net';
import { RpcClient } from '../../common/rpc/client.js';
import { JsonStreamSplitter } from '../../common/rpc/json.js';

export interface ConsoleTransport {
  readonly endpoint: string;
  call(method: string, params: readonly unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class IpcTransport implements ConsoleTransport {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedError: Error | undefined;

  private constructor(
    readonly endpoint: string,
    private readonly socket: Socket,
  ) {
    const splitter = new JsonStreamSplitter();
    socket.on('data', (chunk: Buffer) => {
      for (const text of splitter.push(chunk)) this.answer(text);
    });
    socket.on('close', () => this.fail(new Error(`connection to ${endpoint} closed`)));
    socket.on('error', (err) => this.fail(err));
  }

  static connect(path: string): Promise<IpcTransport> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new IpcTransport(path, socket)));
      socket.once('error', (err: NodeJS.ErrnoException) =>
        reject(new Error(`cannot attach to ${path}: ${err.code ?? err.message}`)),
      );
    });
  }

  private answer(text: string): void {
    const msg = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string } };
    const p = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
    if (p === undefined) return; // notifications are not used by the console
    this.pending.delete(msg.id as number);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  }

  private fail(err: Error): void {
    this.closedError ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  call(method: string, params: readonly unknown[]): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async close(): Promise<void> {
    this.socket.end();
  }
}

export class ClientTransport implements ConsoleTransport {
  private readonly client: RpcClient;

  constructor(
    readonly endpoint: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    this.client = new RpcClient({ url: endpoint, headers, timeoutMs: 0 });
  }

  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await this.client.call(method, params);
    } catch (err) {
      throw new Error((err as Error).message);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** IPC for a path, the RPC client for http(s):// and ws(s):// URLs. */
export async function openTransport(
  endpoint: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<ConsoleTransport> {
  if (/^(https?|wss?):\/\//.test(endpoint)) return new ClientTransport(endpoint, headers);
  return IpcTransport.connect(endpoint);
}
