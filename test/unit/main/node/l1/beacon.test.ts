// The beacon client against a local HTTP server that serves op-l1-rpc/beacon fixtures (goerli slot 7422094).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { startFaultProxy } from '../../../../../src/main/devnet/faultProxy.js';
import { BeaconClient, type BeaconClientOptions } from '../../../../../src/main/node/l1/beacon.js';
import { InlineBlobVerifier } from '../../../../../src/main/node/l1/blobVerifierInline.js';
import type { Hex, IndexedBlobHash, L1BlockRef } from '../../../../../src/main/node/l1/interface.js';
import { decodeBlobData, encodeBlobData } from '../../../../../src/main/protocol/blob/blobData.js';
import { load as loadCKzg } from '../../../../../src/main/protocol/crypto/kzg.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const DIR = join(FIXTURES, 'op-l1-rpc/beacon');
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');
const GENESIS = read('eth_v1_beacon_genesis_goerli.json');
const SPEC = read('eth_v1_config_spec_goerli.json');
interface Sidecar {
  index: string;
  blob: string;
  kzg_commitment: string;
  kzg_proof: string;
}
const SIDECARS = (JSON.parse(read('eth_v1_beacon_blob_sidecars_7422094_goerli.json')) as { data: Sidecar[] }).data;
const SLOT = 7422094;
const GENESIS_TIME = 1606824023;
const hex = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => new Uint8Array(Buffer.from(h.slice(2), 'hex'));
const vhash = (commitment: Uint8Array): Hex => {
  const h = sha256(commitment);
  h[0] = 1;
  return hex(h);
};
const HASHES: IndexedBlobHash[] = SIDECARS.map((s) => ({
  index: Number(s.index),
  hash: vhash(bytes(s.kzg_commitment)),
}));
const REF: L1BlockRef = {
  hash: `0x${'ab'.repeat(32)}`,
  number: 9_000_000,
  parentHash: `0x${'cd'.repeat(32)}`,
  timestamp: GENESIS_TIME + SLOT * 12 + 5,
};

/** A scripted beacon node: which sidecars it has, whether it serves /blobs, what it saw. */
interface Node {
  server: Server;
  url: string;
  sidecars: Sidecar[];
  blobs: { blob: string; hash: Hex }[] | undefined;
  fail: number;
  requests: { url: string; headers: IncomingMessage['headers'] }[];
}

async function startNode(sidecars: Sidecar[], blobs?: { blob: string; hash: Hex }[]): Promise<Node> {
  const node = { sidecars, blobs, fail: 0, requests: [] } as unknown as Node;
  node.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    node.requests.push({ url: req.url ?? '', headers: req.headers });
    const u = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (node.fail > 0) {
      node.fail--;
      return send(503, '{"message":"busy"}');
    }
    if (u.pathname === '/eth/v1/beacon/genesis') return send(200, GENESIS);
    if (u.pathname === '/eth/v1/config/spec') return send(200, SPEC);
    if (u.pathname === `/eth/v1/beacon/blobs/${SLOT}`) {
      if (node.blobs === undefined) return send(404, '{"code":404,"message":"not found"}');
      const want = u.searchParams.getAll('versioned_hashes');
      return send(200, JSON.stringify({ data: node.blobs.filter((b) => want.includes(b.hash)).map((b) => b.blob) }));
    }
    if (u.pathname === `/eth/v1/beacon/blob_sidecars/${SLOT}`) {
      const idx = u.searchParams.get('indices');
      const want = idx === null ? undefined : idx.split(',');
      return send(200, JSON.stringify({ data: node.sidecars.filter((s) => !want || want.includes(s.index)) }));
    }
    send(404, '{"code":404,"message":"no such path"}');
  });
  await new Promise<void>((r) => node.server.listen(0, '127.0.0.1', r));
  node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}`;
  return node;
}

const nodes: Node[] = [];
const verifier = new InlineBlobVerifier();
beforeAll(() => {
  loadCKzg();
});
afterAll(async () => {
  await Promise.all(nodes.map((n) => new Promise((r) => n.server.close(r))));
});

async function client(
  main: Node,
  opts: Partial<BeaconClientOptions> = {},
  fallbacks: Node[] = [],
): Promise<BeaconClient> {
  nodes.push(main, ...fallbacks);
  return new BeaconClient(
    { url: main.url, fallbacks: fallbacks.map((f) => f.url), retryBaseDelayMs: 1, ...opts },
    { logger, verifier },
  );
}

describe('BeaconClient', () => {
  it('computes the slot from genesis time and SECONDS_PER_SLOT after the health check', async () => {
    const c = await client(await startNode(SIDECARS));
    await c.start();
    expect(await c.slotOf(GENESIS_TIME + SLOT * 12 + 11)).toBe(SLOT);
    await expect(c.slotOf(GENESIS_TIME - 1)).rejects.toThrow(/precedes the beacon genesis/);
  });

  it('halts at start when the health check fails, unless told to ignore it', async () => {
    const down = await startNode(SIDECARS);
    down.fail = 1000;
    await expect((await client(down, { maxAttempts: 2 })).start()).rejects.toMatchObject({
      code: 'BEACON_UNAVAILABLE',
      severity: 'critical',
    });
    await expect((await client(down, { maxAttempts: 1, ignore: true })).start()).resolves.toBeUndefined();
  });

  it('fetches sidecars by index when /blobs is missing, verifies them and keeps the order asked', async () => {
    const main = await startNode(SIDECARS);
    const c = await client(main, { header: 'X-Token: s3cret' });
    await c.start();
    const want = [HASHES[3], HASHES[1]] as IndexedBlobHash[];
    const got = await c.getBlobs(REF, want);
    expect(got.map(hex)).toEqual([SIDECARS[3]?.blob, SIDECARS[1]?.blob]);
    const sidecarReq = main.requests.find((r) => r.url.includes('blob_sidecars'));
    expect(sidecarReq?.url).toBe(`/eth/v1/beacon/blob_sidecars/${SLOT}?indices=3,1`);
    expect(sidecarReq?.headers['x-token']).toBe('s3cret');
    // The endpoint lacks /blobs: the next request goes straight to sidecars.
    const before = main.requests.filter((r) => r.url.includes('/blobs/')).length;
    await c.getBlobs(REF, [HASHES[0] as IndexedBlobHash]);
    expect(main.requests.filter((r) => r.url.includes('/blobs/')).length).toBe(before);
  });

  it('asks for every sidecar with fetch-all-sidecars', async () => {
    const main = await startNode(SIDECARS);
    const c = await client(main, { fetchAllSidecars: true });
    expect((await c.getBlobs(REF, [HASHES[2] as IndexedBlobHash])).map(hex)).toEqual([SIDECARS[2]?.blob]);
    expect(main.requests.some((r) => r.url === `/eth/v1/beacon/blob_sidecars/${SLOT}`)).toBe(true);
  });

  it('gets a blob missing at the main endpoint from a fallback (without the main header)', async () => {
    const main = await startNode(SIDECARS.filter((s) => s.index !== '2'));
    const fb = await startNode(SIDECARS);
    const c = await client(main, { header: 'X-Token: s3cret' }, [fb]);
    const got = await c.getBlobs(REF, HASHES);
    expect(got.map(hex)).toEqual(SIDECARS.map((s) => s.blob));
    const fbReq = fb.requests.find((r) => r.url.includes('blob_sidecars'));
    expect(fbReq?.url).toBe(`/eth/v1/beacon/blob_sidecars/${SLOT}?indices=2`);
    expect(fbReq?.headers['x-token']).toBeUndefined();
  });

  it('fails with a temporary BLOB_NOT_FOUND naming block and hash when no source has it', async () => {
    const c = await client(await startNode(SIDECARS.slice(0, 2)), {}, [await startNode([])]);
    const err = await c.getBlobs(REF, [HASHES[4] as IndexedBlobHash]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BLOB_NOT_FOUND', severity: 'temporary' });
    expect((err as Error).message).toContain(`block ${REF.number}`);
    expect((err as Error).message).toContain(REF.hash);
    expect((err as Error).message).toContain((HASHES[4] as IndexedBlobHash).hash);
  });

  it('rejects a sidecar that fails verification and takes the fallback’s good one', async () => {
    const bad = SIDECARS.map((s) => (s.index === '1' ? { ...s, kzg_proof: SIDECARS[0]?.kzg_proof as string } : s));
    const c1 = await client(await startNode(bad), {}, [await startNode(SIDECARS)]);
    expect((await c1.getBlobs(REF, [HASHES[1] as IndexedBlobHash])).map(hex)).toEqual([SIDECARS[1]?.blob]);
    const c2 = await client(await startNode(bad));
    await expect(c2.getBlobs(REF, [HASHES[1] as IndexedBlobHash])).rejects.toMatchObject({
      code: 'BLOB_INVALID',
      severity: 'temporary',
    });
    // A sidecar whose commitment is not the one asked for is not accepted either.
    const wrong = SIDECARS.map((s) => (s.index === '0' ? { ...(SIDECARS[1] as Sidecar), index: '0' } : s));
    const c3 = await client(await startNode(wrong));
    await expect(c3.getBlobs(REF, [HASHES[0] as IndexedBlobHash])).rejects.toMatchObject({ code: 'BLOB_INVALID' });
  });

  it('uses /eth/v1/beacon/blobs when served, matching blobs to hashes by their commitments', async () => {
    const kzg = loadCKzg();
    const made = ['first', 'second'].map((text) => {
      const blob = encodeBlobData(new TextEncoder().encode(text));
      return { blob: hex(blob), hash: vhash(kzg.blobToKzgCommitment(blob)) };
    });
    const main = await startNode([], [made[1], made[0]] as { blob: string; hash: Hex }[]);
    const c = await client(main);
    const want = made.map((m, i) => ({ index: i, hash: m.hash }));
    const got = await c.getBlobs(REF, want);
    expect(got.map((b) => new TextDecoder().decode(decodeBlobData(b)))).toEqual(['first', 'second']);
    expect(main.requests.some((r) => r.url.includes('blob_sidecars'))).toBe(false);
  });

  it('retries a 503 and answers [] for no hashes', async () => {
    const main = await startNode(SIDECARS);
    main.fail = 2;
    const c = await client(main, { maxAttempts: 3 });
    expect((await c.getBlobs(REF, [HASHES[0] as IndexedBlobHash])).map(hex)).toEqual([SIDECARS[0]?.blob]);
    expect(await c.getBlobs(REF, [])).toEqual([]);
  });

  it('gets every blob through 429/5xx, resets and cut answers; counts each failed attempt in a rate-limited WARN', async () => {
    const main = await startNode(SIDECARS);
    nodes.push(main);
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const proxy = await startFaultProxy(main.url, { errorRate: 0.25, resetRate: 0.1, truncateRate: 0.1 }, { random });
    const lines: string[] = [];
    const warnLogger = createLogger({
      level: 'warn',
      format: 'json',
      stream: { write: (l: string) => lines.push(l) },
    }).logger;
    try {
      const c = new BeaconClient(
        { url: proxy.url, retryBaseDelayMs: 1, retryMaxDelayMs: 4, maxAttempts: 12 },
        { logger: warnLogger, verifier },
      );
      await c.start();
      for (let i = 0; i < 12; i++) {
        const h = HASHES[i % HASHES.length] as IndexedBlobHash;
        const [blob] = await c.getBlobs(REF, [h]);
        expect(hex(blob as Uint8Array)).toBe(SIDECARS[i % HASHES.length]?.blob);
      }
      const injected = proxy.counts.errors + proxy.counts.resets + proxy.counts.truncated;
      expect(proxy.counts.truncated).toBeGreaterThan(0);
      expect(proxy.counts.resets).toBeGreaterThan(0);
      const warns = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'Beacon requests failing, retrying');
      // The first failure is said at once; the rest are counted for the next WARN (at most one per 10 s).
      expect(warns).toHaveLength(1);
      expect(warns[0]).toMatchObject({ failures: 1, retried: 1, gaveUp: 0 });
      expect(typeof warns[0].lastPath).toBe('string');
      expect(injected).toBeGreaterThan(5);
      expect(lines.some((l) => l.includes('Could not get blobs'))).toBe(false);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a malformed --l1.beacon-header', () => {
    expect(() => new BeaconClient({ url: 'http://x', header: 'novalue' }, { logger, verifier })).toThrow(/Key: Value/);
  });
});
