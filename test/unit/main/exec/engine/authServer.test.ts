// biome-ignore-all lint/suspicious/noExplicitAny: the test walks JSON-RPC answers of several shapes
// End to end over the auth RPC: a JWT-protected listener serving engine and eth, blocks built with
// forkchoiceUpdated + getPayload + newPayload as JSON, a reorg to a sibling branch, and 401s for bad tokens.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { signJwt } from '../../../../../src/main/common/rpc/jwt.js';
import { createAuthRpcServer, GETH_AUTH_APIS } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { registerEngineApi } from '../../../../../src/main/exec/engine/register.js';
import { type EngineFixture, engineFixture, hex, pending, transfer } from './fixture.js';

const secret = new Uint8Array(32).fill(0x42);
const ZERO = `0x${'00'.repeat(32)}`;

describe('Engine API on the auth RPC listener', () => {
  let f: EngineFixture;
  let url: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    f = await engineFixture();
    const registry = registerEngineApi(new RpcRegistry(), f.api);
    registry.registerNamespace('eth', { blockNumber: () => `0x${f.store.head().number.toString(16)}` });
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    const server = createAuthRpcServer(
      { host: '127.0.0.1', port: 0, jwtSecret: secret, apis: GETH_AUTH_APIS },
      { registry, logger },
    );
    url = (await server.start()).url;
    stop = () => server.stop();
  });
  afterAll(async () => {
    await stop();
    await f.close();
  });

  const call = async (method: string, params: unknown[], token: string | null = signJwt(secret)) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return {
      status: res.status,
      body: res.status === 200 ? ((await res.json()) as { result?: any; error?: any }) : await res.text(),
    };
  };

  const build = async (parent: string, timestamp: number, setHead: boolean): Promise<string> => {
    const attrs = {
      timestamp: `0x${timestamp.toString(16)}`,
      prevRandao: `0x${'07'.repeat(32)}`,
      suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${'09'.repeat(32)}`,
    };
    const fcu = await call('engine_forkchoiceUpdatedV3', [
      { headBlockHash: parent, safeBlockHash: ZERO, finalizedBlockHash: ZERO },
      attrs,
    ]);
    const id = (fcu.body as any).result.payloadId;
    const env = (await call('engine_getPayloadV3', [id])).body as any;
    const payload = env.result.executionPayload;
    const np = (await call('engine_newPayloadV3', [payload, [], attrs.parentBeaconBlockRoot])).body as any;
    expect(np.result).toEqual({ status: 'VALID', latestValidHash: payload.blockHash, validationError: null });
    if (setHead) {
      const r = (
        await call('engine_forkchoiceUpdatedV3', [
          { headBlockHash: payload.blockHash, safeBlockHash: ZERO, finalizedBlockHash: ZERO },
          null,
        ])
      ).body as any;
      expect(r.result.payloadStatus.status).toBe('VALID');
    }
    return payload.blockHash;
  };

  it('builds a chain, reorgs to a sibling branch, and serves eth beside engine', async () => {
    const g = hex(f.genesisHash);
    f.pool.txs = [pending(await transfer(0))];
    const a1 = await build(g, 12, true);
    f.pool.txs = [];
    const a2 = await build(a1, 24, true);
    expect(((await call('eth_blockNumber', [])).body as any).result).toBe('0x2');
    const b1 = await build(g, 13, false);
    const b2 = await build(b1, 25, false);
    const b3 = await build(b2, 37, true);
    expect(((await call('eth_blockNumber', [])).body as any).result).toBe('0x3');
    expect(hex(f.store.canonicalHash(1n) as Uint8Array)).toBe(b1);
    expect(hex(f.store.head().hash)).toBe(b3);
    expect(a2).not.toBe(b2);
    const caps = (await call('engine_exchangeCapabilities', [[]])).body as any;
    expect(caps.result).toContain('engine_newPayloadV3');
    const bad = (await call('engine_getPayloadV3', ['0x0000000000000001'])).body as any;
    expect(bad.error.code).toBe(-38001);
    const malformed = (await call('engine_newPayloadV3', [{}, [], ZERO])).body as any;
    expect(malformed.error.code).toBe(-32602);
  });

  it('refuses a missing, stale or wrongly signed token with 401', async () => {
    const missing = await call('eth_blockNumber', [], null);
    expect(missing.status).toBe(401);
    const stale = await call('eth_blockNumber', [], signJwt(secret, {}, Date.now() - 120_000));
    expect(stale.status).toBe(401);
    expect(String(stale.body)).toMatch(/iat|stale|expired|time/i);
    const wrong = await call('eth_blockNumber', [], signJwt(new Uint8Array(32).fill(1)));
    expect(wrong.status).toBe(401);
  });
});
