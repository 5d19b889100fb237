// The Engine API with a sync service (geth's beacon-sync behaviour): a payload with an unknown parent answers
// SYNCING and is kept; a forkchoiceUpdated to it starts the sync, which imports its ancestors from peers and then the
// kept payload itself; once there, the same forkchoiceUpdated answers VALID.
import { afterEach, describe, expect, it } from 'vitest';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { EngineApi, payloadFromBlock } from '../../../../../src/main/exec/engine/api.js';
import { InlineBlockExecutor } from '../../../../../src/main/exec/executor/inline.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { startSync } from '../../../../../src/main/exec/sync/service.js';
import { fromHex, toHex } from '../../../../../src/main/primitives/bytes.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { FakePeerSet } from '../sync/fakePeers.js';
import { emptyNode, opened, peers, silent, small, sourceChain } from '../sync/syncFixture.js';
import { FakePool } from './fixture.js';

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

const ZERO = new Uint8Array(32);

async function engineWithSync(peerSet: FakePeerSet) {
  const node = await emptyNode();
  // As the node wires them: the sync's imports and the Engine API's calls share the chain lock.
  let api: EngineApi | undefined;
  const exclusive = <T>(fn: () => Promise<T>) => (api as EngineApi).exclusive(fn);
  const sync = startSync({ ...node, peers: peerSet, logger: silent, limits: small, exclusive });
  opened.push(sync);
  const senders = new InlineSenderRecovery();
  const builder = await BlockBuilder.create(node.store, senders, { logger: silent, pool: new FakePool() });
  api = new EngineApi(
    node.store,
    new InlineBlockExecutor(node.store, node.importer, builder),
    {},
    { logger: silent, sync },
  );
  return { ...node, sync, api: api as EngineApi };
}

/** engine_newPayloadV3 for a block of the source chain (Cancun). */
async function newPayloadOf(api: EngineApi, n: bigint) {
  const chain = await sourceChain();
  const block = chain.blockByNumber(n)!;
  const hashes = block.transactions
    .filter((t) => t[0] === 3)
    .flatMap((t) => decodeTransaction(t).blobVersionedHashes ?? [])
    .map((h) => fromHex(h));
  const payload = payloadFromBlock(chain.config(), block, chain.canonicalHash(n)!);
  return api.newPayload(3, payload, hashes, block.header.parentBeaconBlockRoot);
}

describe('Engine API with a sync service', () => {
  it('keeps a payload with an unknown parent, syncs to it on forkchoiceUpdated, then answers VALID', async () => {
    const chain = await sourceChain();
    const { set } = await peers(['honest', 'honest']);
    const { api, sync, store } = await engineWithSync(set);
    const head = chain.canonicalHash(20n)!;
    // Unknown parent, no sync running: SYNCING, and no sync is started by a payload alone (as geth).
    expect((await newPayloadOf(api, 20n)).status).toBe('SYNCING');
    expect(sync.status().state).toBe('idle');
    const fcu = { headBlockHash: head, safeBlockHash: ZERO, finalizedBlockHash: ZERO };
    expect((await api.forkchoiceUpdated(3, fcu)).payloadStatus.status).toBe('SYNCING');
    expect(sync.status()).toMatchObject({ state: 'syncing', target: toHex(head) });
    await sync.idle();
    expect(toHex(store.head().hash)).toBe(toHex(head));
    expect((await api.forkchoiceUpdated(3, fcu)).payloadStatus).toEqual({
      status: 'VALID',
      latestValidHash: head,
      validationError: null,
    });
  });

  it('imports the kept payload itself even when no peer has that block yet', async () => {
    const chain = await sourceChain();
    // Peers that hold the chain only up to block 19: block 20 exists only in the newPayload.
    const { set } = await peers(['honest']);
    const short = new FakePeerSet();
    const [peer] = set.peers() as [import('../sync/fakePeers.js').FakePeer];
    const only19 = Object.assign(Object.create(peer), {
      getBlockHeaders: async (req: Parameters<typeof peer.getBlockHeaders>[0], s?: AbortSignal) =>
        (await peer.getBlockHeaders(req, s)).filter((_, i) => {
          const origin = typeof req.origin === 'bigint' ? req.origin : (chain.headerByHash(req.origin)?.number ?? 0n);
          return (req.reverse ? origin - BigInt(i) : origin + BigInt(i)) < 20n;
        }),
    });
    short.add(only19);
    const { api, sync, store } = await engineWithSync(short);
    const head = chain.canonicalHash(20n)!;
    expect((await newPayloadOf(api, 20n)).status).toBe('SYNCING');
    await api.forkchoiceUpdated(3, { headBlockHash: head, safeBlockHash: ZERO, finalizedBlockHash: ZERO });
    await sync.idle();
    expect(toHex(store.head().hash)).toBe(toHex(head));
  });

  it('a forkchoiceUpdated to a head it has never seen asks the peers for it', async () => {
    const chain = await sourceChain();
    const { set } = await peers(['honest']);
    const { api, sync, store } = await engineWithSync(set);
    const head = chain.canonicalHash(9n)!;
    const fcu = { headBlockHash: head, safeBlockHash: ZERO, finalizedBlockHash: ZERO };
    expect((await api.forkchoiceUpdated(3, fcu)).payloadStatus.status).toBe('SYNCING');
    await sync.idle();
    expect(store.head().number).toBe(9n);
    // A newPayload whose parent is now known executes normally.
    expect((await newPayloadOf(api, 10n)).status).toBe('VALID');
  });

  it('a payload with an unknown parent extends a sync already running', async () => {
    const chain = await sourceChain();
    const { set } = await peers(['honest']);
    const { api, sync, store } = await engineWithSync(set);
    await api.forkchoiceUpdated(3, {
      headBlockHash: chain.canonicalHash(10n)!,
      safeBlockHash: ZERO,
      finalizedBlockHash: ZERO,
    });
    expect(sync.status().state).toBe('syncing');
    expect((await newPayloadOf(api, 20n)).status).toBe('SYNCING');
    await sync.idle();
    expect(toHex(store.head().hash)).toBe(toHex(chain.canonicalHash(20n)!));
  });

  it('syncs across a reorg: a local branch off the target chain is left for the peers’ chain', async () => {
    const chain = await sourceChain();
    const { set } = await peers(['honest']);
    const { api, sync, store, importer } = await engineWithSync(set);
    for (let n = 1n; n <= 12n; n++) await importer.importBlock(chain.blockByNumber(n)!);
    // A block 9' of our own on block 8, made the head: blocks 9..12 of the peers' chain become a side branch.
    const b8 = chain.headerByNumber(8n)!;
    const zero = { headBlockHash: chain.canonicalHash(8n)!, safeBlockHash: ZERO, finalizedBlockHash: ZERO };
    const built = await api.forkchoiceUpdated(3, zero, {
      timestamp: b8.timestamp + 1n,
      prevRandao: ZERO,
      suggestedFeeRecipient: new Uint8Array(20).fill(1),
      withdrawals: [],
      parentBeaconBlockRoot: ZERO,
    });
    const env = api.getPayload(3, built.payloadId!);
    const own = env.executionPayload;
    expect((await api.newPayload(3, own, [], ZERO)).status).toBe('VALID');
    await api.forkchoiceUpdated(3, { ...zero, headBlockHash: own.blockHash });
    expect(toHex(store.head().hash)).toBe(toHex(own.blockHash));
    expect(store.head().number).toBe(9n);
    // The consensus node now wants the peers' block 20.
    const head = chain.canonicalHash(20n)!;
    expect((await api.forkchoiceUpdated(3, { ...zero, headBlockHash: head })).payloadStatus.status).toBe('SYNCING');
    await sync.idle();
    expect(sync.status().state).toBe('idle');
    expect(toHex(store.head().hash)).toBe(toHex(head));
    for (let n = 9n; n <= 20n; n++) expect(toHex(store.canonicalHash(n)!)).toBe(toHex(chain.canonicalHash(n)!));
  });
});
