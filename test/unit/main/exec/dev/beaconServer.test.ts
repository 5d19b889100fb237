// The dev beacon API over HTTP: shapes of genesis/spec/headers/sidecars/blobs, block ids and filters, errors, and
// tern-node's BeaconClient reading blobs from it (both the /blobs and the sidecar path, KZG-verified).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { DevBeacon, type DevBlobSidecar } from '../../../../../src/main/exec/dev/beacon.js';
import { DevBeaconServer } from '../../../../../src/main/exec/dev/beaconServer.js';
import { BeaconClient } from '../../../../../src/main/node/l1/beacon.js';
import { InlineBlobVerifier } from '../../../../../src/main/node/l1/blobVerifierInline.js';
import type { Hex } from '../../../../../src/main/node/l1/interface.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const bytes = (h: string) => new Uint8Array(Buffer.from(h.slice(2), 'hex'));
const hex = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;
const vh = (c: Uint8Array) => {
  const h = new Uint8Array(createHash('sha256').update(c).digest());
  h[0] = 1;
  return h;
};
// Real sidecars (blob, commitment, proof) from the goerli fixture.
const FIXTURE = JSON.parse(
  readFileSync(join(FIXTURES, 'op-l1-rpc/beacon/eth_v1_beacon_blob_sidecars_7422094_goerli.json'), 'utf8'),
) as { data: { blob: string; kzg_commitment: string; kzg_proof: string }[] };
const SIDECARS: DevBlobSidecar[] = FIXTURE.data.slice(0, 3).map((s) => ({
  blob: bytes(s.blob),
  commitment: bytes(s.kzg_commitment),
  proof: bytes(s.kzg_proof),
  versionedHash: vh(bytes(s.kzg_commitment)),
}));
const GENESIS_TIME = 1_700_000_000n;

let beacon: DevBeacon;
let server: DevBeaconServer;
let url: string;
const get = async (path: string) => {
  const res = await fetch(`${url}${path}`);
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field below
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

beforeAll(async () => {
  beacon = new DevBeacon({ genesisTime: GENESIS_TIME, secondsPerSlot: 2 });
  const ref = (n: bigint, slot: bigint) => ({
    number: n,
    hash: new Uint8Array(32).fill(Number(n) + 1),
    timestamp: GENESIS_TIME + slot * 2n,
    stateRoot: new Uint8Array(32).fill(0xaa),
  });
  beacon.add(ref(0n, 0n));
  beacon.add(ref(1n, 1n), SIDECARS);
  beacon.add(ref(2n, 3n));
  server = new DevBeaconServer(
    { host: '127.0.0.1', port: 0, version: 'tern-exec/test', chainId: 1337n, depositContract: `0x${'00'.repeat(20)}` },
    beacon,
    { logger },
  );
  url = await server.start();
});
afterAll(() => server.stop());

describe('dev beacon API', () => {
  it('serves genesis and spec', async () => {
    const g = await get('/eth/v1/beacon/genesis');
    expect(g.status).toBe(200);
    expect(g.body.data.genesis_time).toBe(String(GENESIS_TIME));
    expect(g.body.data.genesis_validators_root).toMatch(/^0x0{64}$/);
    const s = await get('/eth/v1/config/spec');
    expect(s.body.data.SECONDS_PER_SLOT).toBe('2');
    expect(s.body.data.DEPOSIT_CHAIN_ID).toBe('1337');
    expect((await get('/eth/v1/node/version')).body.data.version).toBe('tern-exec/test');
    expect((await fetch(`${url}/eth/v1/node/health`)).status).toBe(200);
  });

  it('resolves slots, head, genesis and roots', async () => {
    const slot1 = beacon.bySlot(1n)!;
    const h = await get('/eth/v1/beacon/headers/1');
    expect(h.body.data.root).toBe(hex(slot1.root));
    expect(h.body.data.header.message).toEqual({
      slot: '1',
      proposer_index: '0',
      parent_root: hex(beacon.genesis()!.root),
      state_root: hex(new Uint8Array(32).fill(0xaa)),
      body_root: hex(new Uint8Array(32).fill(2)),
    });
    expect((await get('/eth/v1/beacon/headers/head')).body.data.header.message.slot).toBe('3');
    expect((await get('/eth/v1/beacon/headers/genesis')).body.data.header.message.slot).toBe('0');
    expect((await get(`/eth/v1/beacon/headers/${hex(slot1.root)}`)).body.data.header.message.slot).toBe('1');
    expect((await get('/eth/v1/beacon/blob_sidecars/2')).status).toBe(404);
    expect((await get('/eth/v1/beacon/blob_sidecars/nope')).status).toBe(400);
    expect((await get('/eth/v1/beacon/blob_sidecars/3')).body.data).toEqual([]);
  });

  it('serves sidecars with index filters, in the beacon API shape', async () => {
    const all = await get('/eth/v1/beacon/blob_sidecars/1');
    expect(all.body.data).toHaveLength(3);
    const s = all.body.data[1];
    expect(s.index).toBe('1');
    expect(s.blob).toBe(FIXTURE.data[1]!.blob);
    expect(s.kzg_commitment).toBe(FIXTURE.data[1]!.kzg_commitment);
    expect(s.kzg_proof).toBe(FIXTURE.data[1]!.kzg_proof);
    expect(s.signed_block_header.message.slot).toBe('1');
    expect(s.signed_block_header.signature).toMatch(/^0x0{192}$/);
    expect(s.kzg_commitment_inclusion_proof).toHaveLength(17);
    const some = await get('/eth/v1/beacon/blob_sidecars/1?indices=2,0');
    expect(some.body.data.map((x: { index: string }) => x.index)).toEqual(['0', '2']);
    const repeated = await get('/eth/v1/beacon/blob_sidecars/1?indices=1&indices=2');
    expect(repeated.body.data.map((x: { index: string }) => x.index)).toEqual(['1', '2']);
  });

  it('serves blobs filtered by versioned hash', async () => {
    const all = await get('/eth/v1/beacon/blobs/1');
    expect(all.body.data).toEqual(FIXTURE.data.slice(0, 3).map((s) => s.blob));
    const one = await get(`/eth/v1/beacon/blobs/1?versioned_hashes=${hex(SIDECARS[2]!.versionedHash)}`);
    expect(one.body.data).toEqual([FIXTURE.data[2]!.blob]);
    expect((await get('/eth/v1/beacon/blobs/1?versioned_hashes=0x12')).status).toBe(400);
  });

  it("is readable by tern-node's BeaconClient", async () => {
    for (const fetchAllSidecars of [false, true]) {
      const client = new BeaconClient({ url, fetchAllSidecars }, { logger, verifier: new InlineBlobVerifier() });
      await client.start();
      const ts = Number(GENESIS_TIME) + 2;
      expect(await client.slotOf(ts)).toBe(1);
      const ref = {
        hash: hex(new Uint8Array(32).fill(2)),
        number: 1,
        parentHash: hex(new Uint8Array(32)),
        timestamp: ts,
      };
      const wanted = [2, 0].map((i) => ({ index: i, hash: hex(SIDECARS[i]!.versionedHash) }));
      const blobs = await client.getBlobs(ref, wanted);
      expect(blobs.map(hex)).toEqual([FIXTURE.data[2]!.blob, FIXTURE.data[0]!.blob]);
    }
  });
});
