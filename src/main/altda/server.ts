// A DA server for local use, speaking op-alt-da's HTTP protocol (specs experimental/alt-da.md "DA Server"):
//   POST /put/0x<encoded commitment>  stores the body under a commitment the client computed (keccak)  → 200
//   POST /put                         stores the body and answers the encoded commitment as raw bytes   → 200
//   GET  /get/0x<encoded commitment>  the stored input                                                  → 200 / 404
// `/put` without a commitment answers a keccak commitment, or with `generic` a random type-1 commitment under
// DA-layer byte 0xff (as op-alt-da's own test server does).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../common/logger/index.js';
import { encodeCommitment, genericCommitment, keccakCommitment } from '../protocol/altda/commitment.js';
import type { DaStore } from './store.js';

/** Largest input accepted (a frame-sized batch is far below it). */
export const MAX_PUT_BYTES = 32 * 1024 * 1024;

export interface DaServerOptions {
  host?: string;
  port?: number;
  /** Answer `/put` with generic (type 1) commitments instead of keccak ones. */
  generic?: boolean;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parseKey(segment: string): Uint8Array {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(segment)) throw new HttpError(400, `invalid commitment ${segment.slice(0, 80)}`);
  return Uint8Array.from(Buffer.from(segment.slice(2), 'hex'));
}

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PUT_BYTES) throw new HttpError(413, `body over ${MAX_PUT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

export class DaServer {
  readonly #server: Server;
  #port: number;
  #url: string | undefined;
  /** Requests answered, by route and status (for tests and logs). */
  readonly counts = { get: 0, getMissing: 0, put: 0 };

  constructor(
    readonly store: DaStore,
    private readonly opts: DaServerOptions,
    private readonly log: Logger,
  ) {
    this.#port = opts.port ?? 0;
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
  }

  get url(): string | undefined {
    return this.#url;
  }

  get listening(): boolean {
    return this.#server.listening;
  }

  /** Listens (again, on the same port after a stop); returns the base URL. */
  async start(): Promise<string> {
    const host = this.opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const a = this.#server.address() as AddressInfo;
    this.#port = a.port;
    this.#url = `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
    this.log.info('DA server listening', { url: this.#url });
    return this.#url;
  }

  async stop(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = new URL(req.url ?? '/', 'http://da').pathname;
      const parts = path.split('/').filter(Boolean);
      if (req.method === 'GET' && parts.length === 2 && parts[0] === 'get') {
        const key = parseKey(parts[1] as string);
        const value = await this.store.get(key);
        this.counts.get++;
        if (value === undefined) {
          this.counts.getMissing++;
          throw new HttpError(404, 'not found');
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': value.length });
        res.end(value);
        return;
      }
      if (req.method === 'POST' && parts[0] === 'put' && parts.length <= 2) {
        const key = parts.length === 2 ? parseKey(parts[1] as string) : undefined;
        const body = await readBody(req);
        const commitment =
          key ??
          encodeCommitment(
            this.opts.generic ? genericCommitment(Uint8Array.from([0xff, ...randomBytes(8)])) : keccakCommitment(body),
          );
        await this.store.put(commitment, body);
        this.counts.put++;
        this.log.debug('DA input stored', { key: Buffer.from(commitment).toString('hex'), bytes: body.length });
        if (key !== undefined) res.writeHead(200, { 'content-length': 0 }).end();
        else {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': commitment.length });
          res.end(commitment);
        }
        return;
      }
      throw new HttpError(
        req.method === 'GET' || req.method === 'POST' ? 400 : 405,
        `unsupported ${req.method} ${path}`,
      );
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) this.log.warn('DA server request failed', { url: req.url, err: String(err) });
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' });
      res.end((err as Error).message);
    }
  }
}
