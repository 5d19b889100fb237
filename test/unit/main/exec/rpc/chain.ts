// The execution-apis test chain (genesis + 20 Cancun blocks) imported into a database, as the RPC tests use it:
// the same steps as `tern-exec init` and `tern-exec import`, then the forkchoice of headfcu.json applied (hive sends
// it before running the tests: head, safe and finalized all at block 20).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../../../../src/main/common/logger/index.js';
import { type CallContext, RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { writeFinalizedBlockHash, writeSafeBlockHash } from '../../../../../src/main/exec/db/chain.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend, type ExecRpcOptions } from '../../../../../src/main/exec/rpc/backend.js';
import type { CallPool } from '../../../../../src/main/exec/rpc/call.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import { FIXTURES } from '../../../../helpers/paths.js';

export const EXECUTION_APIS = join(FIXTURES, 'execution-apis/tests');

export interface TestChain {
  db: Database;
  store: ChainStore;
}

/**
 * Opens `datadir` (LMDB) or an in-memory database and fills it with the test chain; `forkchoice: false` leaves the
 * safe and finalized markers unset.
 */
export async function buildTestChain(
  logger: Logger,
  datadir?: string,
  opts: { forkchoice?: boolean } = {},
): Promise<TestChain> {
  const db = await openDatabase(datadir === undefined ? { engine: 'memory' } : { datadir });
  const store = new ChainStore(db);
  const genesis = parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8')));
  await store.initGenesis(genesis);
  const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
  for (const raw of rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp')))) {
    await importer.importBlock(decodeBlock(raw));
  }
  const fcu = JSON.parse(readFileSync(join(EXECUTION_APIS, 'headfcu.json'), 'utf8')) as {
    params: [{ headBlockHash: string; safeBlockHash: string; finalizedBlockHash: string }];
  };
  const state = fcu.params[0];
  const head = store.head();
  if (`0x${Buffer.from(head.hash).toString('hex')}` !== state.headBlockHash) {
    throw new Error(`imported head ${head.number} is not headfcu.json's head ${state.headBlockHash}`);
  }
  if (opts.forkchoice === false) return { db, store };
  const b = db.kv.batch();
  writeSafeBlockHash(b, Buffer.from(state.safeBlockHash.slice(2), 'hex'));
  writeFinalizedBlockHash(b, Buffer.from(state.finalizedBlockHash.slice(2), 'hex'));
  await b.commit();
  return { db, store };
}

/** The execution-apis chain served by an RPC backend, with a direct way to call its methods. */
/**
 * Calls a registered method as an in-process client would (no subscriptions); an unknown method rejects with
 * -32601.
 */
export function inprocCaller(registry: RpcRegistry): (method: string, params?: unknown[]) => Promise<unknown> {
  return async (method, params = []) => {
    const handler = registry.lookupMethod(method);
    if (!handler) throw Object.assign(new Error(`no method ${method}`), { code: -32601 });
    const ctx: CallContext = {
      method,
      transport: 'inproc',
      peer: { transport: 'inproc', remoteAddr: '' },
      signal: new AbortController().signal,
      canSubscribe: false,
      createSubscription: () => {
        throw new Error('no subscriptions here');
      },
    };
    return handler(params, ctx);
  };
}

export interface TestRpc extends TestChain {
  backend: ExecRpcBackend;
  registry: RpcRegistry;
  /** Calls a method's handler; resolves with its result or rejects with the RpcError it threw. */
  call(method: string, params?: unknown[]): Promise<unknown>;
}

export function serveTestChain(
  chain: TestChain,
  opts: ExecRpcOptions = {},
  logger?: Logger,
  callPool?: CallPool,
): TestRpc {
  const log = logger ?? createLogger({ level: 'silent', format: 'json' }).logger;
  const backend = new ExecRpcBackend(chain.db, chain.store.config(), opts, log);
  backend.calls.usePool(callPool);
  const registry = registerExecApis(new RpcRegistry(), backend);
  const call = inprocCaller(registry);
  return { ...chain, backend, registry, call };
}

/** The JSON-RPC error a call rejected with (fails the test when it resolved). */
export async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    const result = await p;
    throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  } catch (err) {
    if (err instanceof RpcError) return err.toJSON();
    throw err;
  }
}
