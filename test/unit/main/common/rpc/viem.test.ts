// A real client (viem) against the server over HTTP and WebSocket.
import { createPublicClient, http, webSocket } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRpcServer, type RpcServerAddress } from '../../../../../src/main/common/rpc/http.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { recordingLogger } from './helpers.js';

let server: HttpRpcServer;
let address: RpcServerAddress;

beforeAll(async () => {
  const registry = new RpcRegistry().registerNamespace('eth', {
    chainId: () => '0x384',
    blockNumber: () => '0x1b4',
  });
  server = new HttpRpcServer(
    { host: '127.0.0.1', port: 0, http: { apis: ['eth'] }, ws: { apis: ['eth'] } },
    { registry, logger: recordingLogger() },
  );
  address = await server.start();
});

afterAll(async () => {
  await server.stop();
});

describe('viem compatibility', () => {
  it('talks to the server through viem’s http transport', async () => {
    const client = createPublicClient({ transport: http(address.url, { retryCount: 0 }) });
    expect(await client.getChainId()).toBe(900);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(436n);
  });

  it('talks to the server through viem’s batched http transport', async () => {
    const client = createPublicClient({ transport: http(address.url, { batch: true, retryCount: 0 }) });
    const [chainId, block] = await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })]);
    expect([chainId, block]).toEqual([900, 436n]);
  });

  it('talks to the server through viem’s webSocket transport', async () => {
    const transport = webSocket(address.wsUrl as string, { retryCount: 0, keepAlive: false, reconnect: false });
    const client = createPublicClient({ transport });
    expect(await client.getChainId()).toBe(900);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(436n);
    const socket = await client.transport.getRpcClient();
    socket.close();
  });
});
