import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaServer } from '../../../../src/main/altda/server.js';
import { type DaStore, FileDaStore, MemoryDaStore } from '../../../../src/main/altda/store.js';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import {
  ALTDA_MISMATCH,
  ALTDA_NOT_FOUND,
  ALTDA_UNAVAILABLE,
  DaClient,
} from '../../../../src/main/protocol/altda/client.js';
import {
  encodeCommitment,
  GENERIC_COMMITMENT,
  KECCAK_COMMITMENT,
  keccakCommitment,
} from '../../../../src/main/protocol/altda/commitment.js';

const log = createLogger({ level: 'silent', format: 'json' }).logger;
const servers: DaServer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function serve(opts: { generic?: boolean } = {}, store: DaStore = new MemoryDaStore()) {
  const server = new DaServer(store, opts, log);
  servers.push(server);
  const url = await server.start();
  return { server, url, store };
}

const input = Uint8Array.from([0, 1, 2, 3, 4, 5]);

describe('DA server and client (op-alt-da wire protocol)', () => {
  it('POST /put/0x<keccak commitment> then GET /get/0x… returns the input; unknown → 404', async () => {
    const { url } = await serve();
    const c = keccakCommitment(input);
    const key = `0x${Buffer.from(encodeCommitment(c)).toString('hex')}`;
    const put = await fetch(`${url}/put/${key}`, { method: 'POST', body: input });
    expect(put.status).toBe(200);
    const got = await fetch(`${url}/get/${key}`);
    expect(got.status).toBe(200);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(input);
    expect((await fetch(`${url}/get/0x00${'11'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${url}/get/zz`)).status).toBe(400);
    expect((await fetch(`${url}/nothing`)).status).toBe(400);
  });

  it('POST /put answers the encoded commitment as raw bytes (keccak, or generic in DA-service mode)', async () => {
    const { url } = await serve();
    const res = await fetch(`${url}/put`, { method: 'POST', body: input });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(encodeCommitment(keccakCommitment(input)));
    const generic = await serve({ generic: true });
    const client = new DaClient({ url: generic.url, daService: true });
    const c = await client.setInput(input);
    expect(c.type).toBe(GENERIC_COMMITMENT);
    expect(c.body[0]).toBe(0xff);
    expect(await client.getInput(c)).toEqual(input);
  });

  it('client: precomputed keccak put, verified get, 404 and mismatch and down are distinct errors', async () => {
    const { url, store, server } = await serve();
    const client = new DaClient({ url: `${url}/`, getTimeoutMs: 2000 });
    const c = await client.setInput(input);
    expect(c).toEqual(keccakCommitment(input));
    expect(await client.getInput(c)).toEqual(input);
    await expect(client.getInput(keccakCommitment(Uint8Array.of(9)))).rejects.toMatchObject({ code: ALTDA_NOT_FOUND });
    await store.put(encodeCommitment(c), Uint8Array.of(7, 7));
    await expect(client.getInput(c)).rejects.toMatchObject({ code: ALTDA_MISMATCH });
    // Without verification the data is passed on as served.
    expect(await new DaClient({ url, verifyOnRead: false }).getInput(c)).toEqual(Uint8Array.of(7, 7));
    await server.stop();
    await expect(client.getInput(c)).rejects.toMatchObject({ code: ALTDA_UNAVAILABLE });
    await expect(client.setInput(input)).rejects.toMatchObject({ code: ALTDA_UNAVAILABLE });
    await server.start();
    expect((await client.setInput(input)).type).toBe(KECCAK_COMMITMENT);
    await expect(client.setInput(new Uint8Array())).rejects.toThrow(/empty/);
  });

  it('on-disk store keeps inputs across server restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tern-da-'));
    dirs.push(dir);
    const first = await serve({}, new FileDaStore(dir));
    const c = await new DaClient({ url: first.url }).setInput(input);
    await first.server.stop();
    const second = await serve({}, new FileDaStore(dir));
    expect(await new DaClient({ url: second.url }).getInput(c)).toEqual(input);
  });
});
