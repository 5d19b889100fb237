import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { anvilArgs, blockNumberAt, startBeaconProxy } from '../../../../src/main/devnet/anvil.js';

describe('anvil as layer 1', () => {
  it('runs from the devnet genesis with Prague rules and the L1 block time', () => {
    expect(anvilArgs({ genesisFile: '/w/l1-genesis.json', host: '127.0.0.1', port: 8545, blockTime: 2 })).toEqual([
      '--init=/w/l1-genesis.json',
      '--hardfork=prague',
      '--block-time=2',
      '--host=127.0.0.1',
      '--port=8545',
    ]);
  });

  it('finds the block of a time by bisection, and none for a time without a block', async () => {
    const times = [100, 101, 103, 104, 110];
    const block = async (n: number | 'latest') => {
      const i = n === 'latest' ? times.length - 1 : n;
      return { number: `0x${i.toString(16)}`, timestamp: `0x${(times[i] as number).toString(16)}` };
    };
    for (const [i, t] of times.entries()) expect(await blockNumberAt(t, block)).toBe(i);
    expect(await blockNumberAt(102, block)).toBeUndefined();
    expect(await blockNumberAt(99, block)).toBeUndefined();
    expect(await blockNumberAt(111, block)).toBeUndefined();
  });
});

describe('the beacon proxy', () => {
  let fake: Server | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    await new Promise<void>((r) => (fake ? fake.close(() => r()) : r()));
  });

  it('answers the spec (1 s slots), maps a slot to the block of that time, forwards the rest', async () => {
    // A fake anvil: blocks 0..3 at times 1000, 1002, 1003, 1005; blob and genesis endpoints echo what they got.
    const times = [1000, 1002, 1003, 1005];
    fake = createServer((req, res) => {
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (d) => {
          body += d;
        });
        req.on('end', () => {
          const { params } = JSON.parse(body) as { params: [string, boolean] };
          const i = params[0] === 'latest' ? times.length - 1 : Number(params[0]);
          const result =
            i < times.length
              ? { number: `0x${i.toString(16)}`, timestamp: `0x${(times[i] as number).toString(16)}` }
              : null;
          res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { path: req.url } }));
    });
    await new Promise<void>((r) => fake?.listen(0, '127.0.0.1', r));
    const rpc = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const proxy = await startBeaconProxy({ rpc, host: '127.0.0.1', port: 0 });
    close = proxy.close;
    const get = async (path: string) => {
      const r = await fetch(`${proxy.url}${path}`);
      return { status: r.status, body: (await r.json()) as { data?: Record<string, string> } };
    };
    expect((await get('/eth/v1/config/spec')).body.data?.SECONDS_PER_SLOT).toBe('1');
    expect((await get('/eth/v1/beacon/genesis')).body.data?.path).toBe('/eth/v1/beacon/genesis');
    // Slot 3 is time 1003: block 2.
    expect((await get('/eth/v1/beacon/blobs/3?versioned_hashes=0x01')).body.data?.path).toBe(
      '/eth/v1/beacon/blobs/2?versioned_hashes=0x01',
    );
    expect((await get('/eth/v1/beacon/blobs/5')).body.data?.path).toBe('/eth/v1/beacon/blobs/3');
    expect((await get('/eth/v1/beacon/blobs/1')).status).toBe(404);
  });
});
