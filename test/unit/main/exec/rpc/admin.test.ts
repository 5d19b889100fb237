// admin_nodeInfo / admin_datadir / admin_peers over the execution-apis chain.
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { buildTestChain, type TestChain } from './chain.js';

describe('admin namespace', () => {
  let chain: TestChain;
  let registry: RpcRegistry;
  beforeAll(async () => {
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    chain = await buildTestChain(logger);
    const backend = new ExecRpcBackend(chain.db, chain.store.config(), { clientVersion: 'tern-exec/test' }, logger);
    registry = registerExecApis(new RpcRegistry(), backend, undefined, { datadir: '/data/tern' });
  }, 120_000);

  const call = (method: string) => {
    const handler = registry.lookupMethod(method);
    if (!handler) throw new Error(`no ${method}`);
    return handler([], {} as never);
  };

  it('datadir and peers', async () => {
    expect(await call('admin_datadir')).toBe('/data/tern');
    expect(await call('admin_peers')).toEqual([]);
  });

  it('nodeInfo reports the chain', async () => {
    const info = (await call('admin_nodeInfo')) as {
      name: string;
      protocols: { eth: { network: number; genesis: string; head: string; config: { chainId: number } } };
    };
    const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
    expect(info.name).toBe('tern-exec/test');
    expect(info.protocols.eth.genesis).toBe(hex(chain.store.genesisHash() as Uint8Array));
    expect(info.protocols.eth.head).toBe(hex(chain.store.head().hash));
    expect(BigInt(info.protocols.eth.network)).toBe(chain.store.config().chainId);
    expect(BigInt(info.protocols.eth.config.chainId)).toBe(chain.store.config().chainId);
  });

  it('is only registered with the node information', () => {
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    const backend = new ExecRpcBackend(chain.db, chain.store.config(), {}, logger);
    expect(registerExecApis(new RpcRegistry(), backend).lookupMethod('admin_datadir')).toBeUndefined();
  });
});
