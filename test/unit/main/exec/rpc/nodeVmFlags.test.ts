// The node's wiring of --vmdebug, --cache.preimages (on in archive mode, as geth) and --exitwhensynced (off with
// --dev): options from the flags, and a started node that stops itself once its head is recent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../../src/main/cli/execFlags.js';
import { execNodeOptions } from '../../../../../src/main/cli/execOptions.js';
import { assertSupported, parseSettings } from '../../../../../src/main/cli/parse.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { startExecNode } from '../../../../../src/main/exec/node.js';
import { buildTestChain, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const options = (argv: string[]) => {
  const s = parseSettings(EXEC_PROGRAM, { argv, env: {} });
  assertSupported(s);
  return execNodeOptions(s);
};
let chain: TestChain;
beforeAll(async () => {
  chain = await buildTestChain(logger);
}, 120_000);
afterAll(async () => {
  await chain.db.close();
});

describe('VM and sync flags of the node', () => {
  it('maps --vmdebug, --cache.preimages, --gcmode archive and --exitwhensynced', () => {
    expect(options([]).preimages).toEqual({ sha3: false, trieKeys: false });
    expect(options([]).exitWhenSynced).toBe(false);
    expect(options(['--vmdebug']).preimages).toEqual({ sha3: true, trieKeys: false });
    expect(options(['--cache.preimages']).preimages).toEqual({ sha3: false, trieKeys: true });
    expect(options(['--gcmode', 'archive']).preimages).toEqual({ sha3: false, trieKeys: true });
    expect(options(['--exitwhensynced']).exitWhenSynced).toBe(true);
    expect(options(['--exitwhensynced', '--dev']).exitWhenSynced).toBe(false);
    for (const flag of ['--nocompaction', '--crypto.kzg=ckzg', '--crypto.kzg=gokzg'])
      expect(() => options([flag])).not.toThrow();
  });

  it('a node with --exitwhensynced stops at a recent head and not at an old one', async () => {
    const lifecycle = new Lifecycle(logger);
    const node = await startExecNode(
      chain.db,
      { rpc: {}, ipcPath: undefined, backend: {}, exitWhenSynced: true },
      { logger, lifecycle },
    );
    const head = node.store.head();
    let stopped = false;
    void lifecycle.stopped.then(() => {
      stopped = true;
    });
    // The test chain's blocks are years old: not synced.
    headEvents(chain.db).emit(head);
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    expect(lifecycle.signal.aborted).toBe(false);
    const recent = { ...head, header: { ...head.header, timestamp: BigInt(Math.floor(Date.now() / 1000)) } };
    headEvents(chain.db).emit(recent);
    await lifecycle.stopped;
    expect(lifecycle.signal.aborted).toBe(true);
  }, 60_000);
});
