// The node's side of the sync: --syncmode and --synctarget from the flags, a node started with a peer set syncing
// to --synctarget, refusing --synctarget without peers, and eth_syncing answering the sync's progress.
import { afterEach, describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../../src/main/cli/execFlags.js';
import { execNodeOptions } from '../../../../../src/main/cli/execOptions.js';
import { parseSettings } from '../../../../../src/main/cli/parse.js';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import type { CallContext } from '../../../../../src/main/common/rpc/registry.js';
import { startExecNode } from '../../../../../src/main/exec/node.js';
import { toHex } from '../../../../../src/main/primitives/bytes.js';
import { emptyNode, opened, peers, silent, sourceChain } from './syncFixture.js';

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

const settings = (argv: string[]) => parseSettings(EXEC_PROGRAM, { argv, env: {} });
const ctx = { method: 'eth_syncing', transport: 'inproc', peer: { transport: 'inproc', remoteAddr: '' } } as const;

describe('sync flags', () => {
  it('maps --syncmode and --synctarget (default: snap, no target)', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const o = execNodeOptions(settings(['--syncmode', 'full', '--synctarget', hash]));
    expect(o.sync?.mode).toBe('full');
    expect(toHex(o.sync!.target!)).toBe(hash);
    expect(execNodeOptions(settings([])).sync).toEqual({ mode: 'snap', target: undefined });
  });

  it('refuses a --syncmode that is not snap or full, naming both', () => {
    expect(() => settings(['--syncmode', 'light'])).toThrow(/syncmode.*snap.*full|snap, full/);
  });
});

describe('a node with peers', () => {
  it('syncs to --synctarget at start, eth_syncing reporting the run, false once done', async () => {
    const chain = await sourceChain();
    const { db } = await emptyNode();
    const { set } = await peers(['honest', 'honest']);
    const lifecycle = new Lifecycle(silent);
    opened.push({ close: () => lifecycle.stop('test') as Promise<unknown> as Promise<void> });
    const target = chain.canonicalHash(15n)!;
    const node = await startExecNode(
      db,
      { rpc: {}, ipcPath: undefined, backend: {}, sync: { mode: 'full', target } },
      { logger: silent, lifecycle, peers: set },
    );
    const syncing = node.registry.lookupMethod('eth_syncing')!;
    const call = () => syncing([], { ...ctx, signal: new AbortController().signal } as unknown as CallContext);
    // Polled while the sync runs: false before the first progress (the target header is being fetched), then the numbers.
    const answers: unknown[] = [];
    while (node.store.head().number < 15n) {
      answers.push(await call());
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(toHex(node.store.head().hash)).toBe(toHex(target));
    const progress = answers.filter((a) => a !== false) as Array<Record<string, string>>;
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ startingBlock: '0x0', highestBlock: '0xf', syncedAccounts: '0x0' });
    expect(Object.keys(progress[0]!)).toHaveLength(15);
    // Sync done: eth_syncing is false again (the run ends right after its last import).
    for (let i = 0; i < 100 && (await call()) !== false; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await call()).toBe(false);
  });

  it('refuses --synctarget without peers to sync from', async () => {
    const { db } = await emptyNode();
    const lifecycle = new Lifecycle(silent);
    opened.push({ close: () => lifecycle.stop('test') as Promise<unknown> as Promise<void> });
    const target = new Uint8Array(32).fill(1);
    await expect(
      startExecNode(
        db,
        { rpc: {}, ipcPath: undefined, backend: {}, sync: { mode: 'full', target } },
        { logger: silent, lifecycle },
      ),
    ).rejects.toThrow(UsageError);
  });
});
