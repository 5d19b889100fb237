// The remote block signer (op-service/signer's client, as op-node uses it with --signer.*): JSON-RPC over HTTPS
// with a client certificate (mutual TLS, TLS 1.3, on by default), extra headers, a `health_status` ping at connect.
// Blocks are signed with opsigner_signBlockPayloadV2 (hex domain and hash, decimal chain id); a signer that does
// not know V2 (-32601) is asked with the V1 form from then on (Go's encoding: domain as a number array, chain id as
// a JSON number, payload hash as base64). Every signature is checked to recover to --signer.address, so a
// misconfigured signer is caught before a block goes out. The client certificate and key are re-read when their
// files change (certificate rotation), as op-service's certman does.
import { readFileSync, statSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { BlockSigner } from './interface.js';
import { recoverSigner, SIGNING_DOMAIN_BLOCKS_V1, signingHash } from './signingHash.js';

export interface RemoteSignerTlsOptions {
  /** --signer.tls.enabled: present a client certificate and trust only the CA (default true). */
  enabled: boolean;
  /** --signer.tls.ca, --signer.tls.cert, --signer.tls.key */
  ca: string;
  cert: string;
  key: string;
}

export interface RemoteSignerOptions {
  /** --signer.endpoint */
  endpoint: string;
  /** --signer.address: the key the signer signs with. */
  address: string;
  /** --signer.header pairs. */
  headers?: ReadonlyArray<readonly [string, string]> | Readonly<Record<string, string>> | undefined;
  tls: RemoteSignerTlsOptions;
  /** Per request, including connecting. */
  timeoutMs?: number | undefined;
}

export const remoteSignerDefaults = {
  tls: { enabled: true, ca: 'tls/ca.crt', cert: 'tls/tls.crt', key: 'tls/tls.key' },
  timeoutMs: 10_000,
} as const;

export interface RemoteSignerDeps {
  logger: Logger;
  signal?: AbortSignal | undefined;
}

const METHOD_NOT_FOUND = -32601;

const rpcFailure = (message: string, cause?: unknown) =>
  new TernError(
    'SIGNER_RPC',
    message,
    cause === undefined ? { severity: 'temporary' } : { severity: 'temporary', cause },
  );

class RemoteRpcError extends TernError {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super('SIGNER_RPC', message, { severity: 'temporary' });
  }
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new TernError('SIGNER_TLS', `cannot read the signer TLS ${what} ${path}: ${(err as Error).message}`);
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

function checkAddress(a: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a))
    throw new TernError('SIGNER_ADDRESS', `--signer.address ${a} is not a 20-byte hex address`);
  return a.toLowerCase();
}

function hex(b: Uint8Array): string {
  return `0x${Buffer.from(b).toString('hex')}`;
}

function parseSignature(v: unknown): Uint8Array {
  // op-signer answers a hex string; some signers wrap it as {signature}.
  const s = typeof v === 'object' && v !== null && 'signature' in v ? (v as { signature: unknown }).signature : v;
  if (typeof s !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(s)) {
    throw rpcFailure(`the remote signer returned no 65-byte hex signature: ${JSON.stringify(v)?.slice(0, 200)}`);
  }
  const sig = Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
  // Some signers return Ethereum-style v (27/28).
  if ((sig[64] as number) >= 27) sig[64] = (sig[64] as number) - 27;
  return sig;
}

export class RemoteSigner implements BlockSigner {
  readonly kind = 'remote' as const;
  readonly address: string;
  readonly #opts: RemoteSignerOptions;
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #log: Logger;
  #agent: HttpAgent | HttpsAgent;
  #certStamp = '';
  #useV1 = false;
  #nextId = 1;
  #closed = false;
  #version = '';

  constructor(opts: RemoteSignerOptions, deps: RemoteSignerDeps) {
    this.#opts = opts;
    this.address = checkAddress(opts.address);
    try {
      this.#url = new URL(opts.endpoint);
    } catch {
      throw new TernError('SIGNER_ENDPOINT', `--signer.endpoint ${opts.endpoint} is not a URL`);
    }
    if (this.#url.protocol !== 'http:' && this.#url.protocol !== 'https:') {
      throw new TernError('SIGNER_ENDPOINT', `--signer.endpoint must be http(s), got ${this.#url.protocol}`);
    }
    if (opts.tls.enabled && this.#url.protocol !== 'https:') {
      throw new TernError(
        'SIGNER_ENDPOINT',
        `--signer.endpoint ${opts.endpoint} is not https: but TLS is enabled (use https:// or --signer.tls.enabled=false)`,
      );
    }
    const h = opts.headers ?? [];
    this.#headers = Array.isArray(h) ? Object.fromEntries(h) : { ...(h as Record<string, string>) };
    this.#log = deps.logger.child('signer');
    this.#agent = this.#makeAgent();
    deps.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** Creates the client and checks the signer answers (health_status), as op-node does at startup. */
  static async connect(opts: RemoteSignerOptions, deps: RemoteSignerDeps): Promise<RemoteSigner> {
    const s = new RemoteSigner(opts, deps);
    try {
      const v = await s.#call('health_status', []);
      s.#version = typeof v === 'string' ? v : JSON.stringify(v);
    } catch (err) {
      await s.close();
      throw rpcFailure(
        `the remote signer at ${opts.endpoint} did not answer health_status: ${(err as Error).message}`,
        err,
      );
    }
    s.#log.info('Remote signer connected', {
      endpoint: opts.endpoint,
      address: s.address,
      status: s.#version,
      tls: opts.tls.enabled,
    });
    return s;
  }

  get status(): string {
    return this.#version;
  }

  async signBlock(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    if (payloadHash.length !== 32) throw new TernError('SIGNER_PAYLOAD_HASH', 'payload hash must be 32 bytes');
    let sig: Uint8Array;
    if (!this.#useV1) {
      try {
        sig = parseSignature(
          await this.#call('opsigner_signBlockPayloadV2', [
            {
              domain: hex(SIGNING_DOMAIN_BLOCKS_V1),
              chainId: chainId.toString(10),
              payloadHash: hex(payloadHash),
              senderAddress: this.address,
            },
          ]),
        );
        return this.#checked(sig, chainId, payloadHash);
      } catch (err) {
        if (!(err instanceof RemoteRpcError && err.rpcCode === METHOD_NOT_FOUND)) throw err;
        this.#log.info('Remote signer has no opsigner_signBlockPayloadV2, using opsigner_signBlockPayload');
        this.#useV1 = true;
      }
    }
    sig = parseSignature(
      await this.#call('opsigner_signBlockPayload', [
        {
          domain: Array.from(SIGNING_DOMAIN_BLOCKS_V1),
          chainId: new RawNumber(chainId),
          payloadHash: Buffer.from(payloadHash).toString('base64'),
          senderAddress: this.address,
        },
      ]),
    );
    return this.#checked(sig, chainId, payloadHash);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#agent.destroy();
  }

  #checked(sig: Uint8Array, chainId: bigint, payloadHash: Uint8Array): Uint8Array {
    const who = recoverSigner(signingHash(SIGNING_DOMAIN_BLOCKS_V1, chainId, payloadHash), sig);
    if (who !== this.address) {
      throw new TernError(
        'SIGNER_WRONG_ADDRESS',
        `the remote signer signed with ${who}, expected --signer.address ${this.address}`,
        {
          severity: 'temporary',
        },
      );
    }
    return sig;
  }

  #makeAgent(): HttpAgent | HttpsAgent {
    if (this.#url.protocol === 'http:') return new HttpAgent({ keepAlive: true });
    const t = this.#opts.tls;
    if (!t.enabled) return new HttpsAgent({ keepAlive: true });
    this.#certStamp = `${mtime(t.cert)}:${mtime(t.key)}:${mtime(t.ca)}`;
    return new HttpsAgent({
      keepAlive: true,
      minVersion: 'TLSv1.3',
      ca: readPem(t.ca, 'CA certificate'),
      cert: readPem(t.cert, 'certificate'),
      key: readPem(t.key, 'key'),
    });
  }

  /** A new agent when the certificate files changed (rotation); in-flight requests keep the old one. */
  #currentAgent(): HttpAgent | HttpsAgent {
    const t = this.#opts.tls;
    if (this.#url.protocol === 'https:' && t.enabled) {
      const stamp = `${mtime(t.cert)}:${mtime(t.key)}:${mtime(t.ca)}`;
      if (stamp !== this.#certStamp) {
        const old = this.#agent;
        this.#agent = this.#makeAgent();
        this.#log.info('Reloaded the signer TLS certificate');
        setTimeout(() => old.destroy(), 30_000).unref();
      }
    }
    return this.#agent;
  }

  #call(method: string, params: unknown[]): Promise<unknown> {
    if (this.#closed) return Promise.reject(new TernError('SIGNER_CLOSED', 'the signer is closed'));
    const id = this.#nextId++;
    const body = Buffer.from(stringify({ jsonrpc: '2.0', id, method, params }), 'utf8');
    const timeoutMs = this.#opts.timeoutMs ?? remoteSignerDefaults.timeoutMs;
    const agent = this.#currentAgent();
    const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(this.#url, {
        method: 'POST',
        agent,
        headers: { ...this.#headers, 'content-type': 'application/json', 'content-length': body.length },
        timeout: timeoutMs,
      });
      req.on('timeout', () =>
        req.destroy(rpcFailure(`${method}: no answer from the remote signer within ${timeoutMs} ms`)),
      );
      req.on('error', (err) =>
        reject(
          err instanceof TernError ? err : rpcFailure(`${method}: remote signer request failed: ${err.message}`, err),
        ),
      );
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(rpcFailure(`${method}: ${err.message}`, err)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(rpcFailure(`${method}: remote signer answered HTTP ${status}: ${text.slice(0, 300)}`));
            return;
          }
          let msg: { result?: unknown; error?: { code?: unknown; message?: unknown } };
          try {
            msg = JSON.parse(text) as typeof msg;
          } catch {
            reject(rpcFailure(`${method}: remote signer answered non-JSON: ${text.slice(0, 200)}`));
            return;
          }
          if (msg.error !== undefined && msg.error !== null) {
            const code = typeof msg.error.code === 'number' ? msg.error.code : 0;
            reject(new RemoteRpcError(code, `${method} failed: ${String(msg.error.message ?? 'error')} (${code})`));
            return;
          }
          resolve(msg.result);
        });
      });
      req.end(body);
    });
  }
}

/** A bigint written as a bare JSON number (Go's *big.Int encoding), whatever its size. */
class RawNumber {
  constructor(readonly value: bigint) {}
}

function stringify(v: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(v, (_k, x: unknown) => {
    if (x instanceof RawNumber) {
      marks.push(x.value.toString(10));
      return `\u0000raw${marks.length - 1}\u0000`;
    }
    return x;
  });
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)] as string);
}
