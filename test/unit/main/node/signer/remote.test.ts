// The remote signer client against a local HTTPS server that demands a client certificate (mutual TLS, certs made
// with openssl in a temp dir): health_status at connect, opsigner_signBlockPayloadV2 with op-signer's JSON shape,
// the V1 fallback with Go's encoding, custom headers, a client without a trusted certificate refused, and a
// signature from the wrong key rejected.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { LocalSigner } from '../../../../../src/main/node/signer/local.js';
import { RemoteSigner, type RemoteSignerOptions } from '../../../../../src/main/node/signer/remote.js';
import { setupBlockSigner } from '../../../../../src/main/node/signer/setup.js';
import {
  recoverSigner,
  SIGNING_DOMAIN_BLOCKS_V1,
  signingHash,
} from '../../../../../src/main/node/signer/signingHash.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const signerKey = new LocalSigner(KEY);

let dir: string;
let server: Server;
let url: string;
const seen: Array<{ method: string; params: unknown[]; headers: Record<string, unknown>; cn: string }> = [];
let mode: 'v2' | 'v1-only' | 'wrong-key' = 'v2';

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, and a certificate signed by it for `name` (server: with localhost/127.0.0.1 as subject alt names). */
function makeCa(name: string): void {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  );
}
function makeCert(name: string, ca: string, server: boolean): void {
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  );
  const ext = join(dir, `${name}.ext`);
  writeFileSync(
    ext,
    server
      ? 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'
      : 'extendedKeyUsage=clientAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.crt`,
    '-extfile',
    ext,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-signer-'));
  makeCa('ca');
  makeCert('server', 'ca', true);
  makeCert('client', 'ca', false);
  makeCa('rogue');
  makeCert('intruder', 'rogue', false);
  const { readFileSync } = await import('node:fs');
  const read = (f: string) => readFileSync(join(dir, f));
  server = createServer(
    {
      key: read('server.key'),
      cert: read('server.crt'),
      ca: read('ca.crt'),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string; params: unknown[] };
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        seen.push({ method: msg.method, params: msg.params, headers: req.headers, cn: String(peer.subject?.CN) });
        const reply = (body: object) => res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
        if (msg.method === 'health_status') return reply({ result: 'ok' });
        if (msg.method === 'opsigner_signBlockPayloadV2' && mode !== 'v1-only') {
          const a = msg.params[0] as { chainId: string; payloadHash: string };
          const key = mode === 'wrong-key' ? new LocalSigner(OTHER_KEY) : signerKey;
          const sig = await key.signBlock(BigInt(a.chainId), Buffer.from(a.payloadHash.slice(2), 'hex'));
          return reply({ result: `0x${Buffer.from(sig).toString('hex')}` });
        }
        if (msg.method === 'opsigner_signBlockPayload' && mode === 'v1-only') {
          const a = msg.params[0] as { chainId: number; payloadHash: string };
          const sig = await signerKey.signBlock(BigInt(a.chainId), Buffer.from(a.payloadHash, 'base64'));
          return reply({ result: `0x${Buffer.from(sig).toString('hex')}` });
        }
        return reply({ error: { code: -32601, message: `the method ${msg.method} does not exist/is not available` } });
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function opts(client = 'client', extra: Partial<RemoteSignerOptions> = {}): RemoteSignerOptions {
  return {
    endpoint: url,
    address: signerKey.address,
    headers: [['X-Tern-Test', 'a=b,c']],
    tls: { enabled: true, ca: join(dir, 'ca.crt'), cert: join(dir, `${client}.crt`), key: join(dir, `${client}.key`) },
    timeoutMs: 5000,
    ...extra,
  };
}

const PAYLOAD_HASH = new Uint8Array(32).fill(0xab);

describe('RemoteSigner over mutual TLS', () => {
  it('pings health_status, then signs with opsigner_signBlockPayloadV2 and checks the signer address', async () => {
    mode = 'v2';
    seen.length = 0;
    const s = await RemoteSigner.connect(opts(), { logger });
    expect(s.status).toBe('ok');
    const sig = await s.signBlock(901n, PAYLOAD_HASH);
    expect(recoverSigner(signingHash(SIGNING_DOMAIN_BLOCKS_V1, 901n, PAYLOAD_HASH), sig)).toBe(signerKey.address);
    expect(seen.map((x) => x.method)).toEqual(['health_status', 'opsigner_signBlockPayloadV2']);
    expect(seen[1]?.params).toEqual([
      {
        domain: `0x${'00'.repeat(32)}`,
        chainId: '901',
        payloadHash: `0x${'ab'.repeat(32)}`,
        senderAddress: signerKey.address,
      },
    ]);
    expect(seen[1]?.headers['x-tern-test']).toBe('a=b,c');
    expect(seen[1]?.cn).toBe('client');
    await s.close();
  });

  it('falls back to opsigner_signBlockPayload (Go encoding) when V2 is unknown, and stays there', async () => {
    mode = 'v1-only';
    seen.length = 0;
    const s = await RemoteSigner.connect(opts(), { logger });
    await s.signBlock(901n, PAYLOAD_HASH);
    await s.signBlock(901n, PAYLOAD_HASH);
    expect(seen.map((x) => x.method)).toEqual([
      'health_status',
      'opsigner_signBlockPayloadV2',
      'opsigner_signBlockPayload',
      'opsigner_signBlockPayload',
    ]);
    const a = seen[2]?.params[0] as Record<string, unknown>;
    expect(a.domain).toEqual(new Array(32).fill(0));
    expect(a.chainId).toBe(901);
    expect(a.payloadHash).toBe(Buffer.from(PAYLOAD_HASH).toString('base64'));
    await s.close();
  });

  it('rejects a signature that does not recover to --signer.address', async () => {
    mode = 'wrong-key';
    const s = await RemoteSigner.connect(opts(), { logger });
    await expect(s.signBlock(901n, PAYLOAD_HASH)).rejects.toMatchObject({ code: 'SIGNER_WRONG_ADDRESS' });
    await s.close();
  });

  it('cannot connect with a certificate the server does not trust, nor with plain http while TLS is on', async () => {
    await expect(RemoteSigner.connect(opts('intruder'), { logger })).rejects.toMatchObject({ code: 'SIGNER_RPC' });
    expect(() => new RemoteSigner(opts('client', { endpoint: url.replace('https', 'http') }), { logger })).toThrow(
      /not https/,
    );
    expect(
      () =>
        new RemoteSigner(opts('client', { tls: { enabled: true, ca: join(dir, 'nope.crt'), cert: 'x', key: 'y' } }), {
          logger,
        }),
    ).toThrow(/cannot read the signer TLS/);
  });

  it('setupBlockSigner picks local or remote and refuses conflicting flags', async () => {
    const tls = opts().tls;
    const local = await setupBlockSigner({ sequencerKey: KEY, remote: { tls } }, { logger });
    expect(local?.kind).toBe('local');
    expect(await setupBlockSigner({ remote: { tls } }, { logger })).toBeUndefined();
    await expect(
      setupBlockSigner({ sequencerKey: KEY, remote: { endpoint: url, address: signerKey.address, tls } }, { logger }),
    ).rejects.toThrow(/not both/);
    await expect(setupBlockSigner({ remote: { endpoint: url, tls } }, { logger })).rejects.toThrow(/together/);
    mode = 'v2';
    const remote = await setupBlockSigner({ remote: { endpoint: url, address: signerKey.address, tls } }, { logger });
    expect(remote?.kind).toBe('remote');
    await remote?.close();
  });
});
