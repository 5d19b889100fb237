// The engine benchmark's feeder on a short generated chain (ethereumjs produced it, roots and all): every block
// through engine_newPayloadV3 + forkchoiceUpdatedV3 must be VALID and the node must end on the chain's head, in
// process and over HTTP+JWT to a spawned tern-exec (dist/, as `npm run bench:engine` runs it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedPayloads, type PayloadCall, payloadsOf } from '../../../../bench/engine/feeder.js';
import { spawnTernExec, startInProcess, withNode } from '../../../../bench/engine/nodes.js';
import { generateChain } from '../../../../bench/import/generate.js';
import { type ChainFiles, type ChainMeta, chainFiles, DEFAULT_PARAMS } from '../../../../bench/import/params.js';
import { parseGenesis } from '../../../../src/main/exec/chain/genesis.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-engine-feeder-'));
const files: ChainFiles = chainFiles(dir);
let meta: ChainMeta;
let calls: PayloadCall[];

beforeAll(async () => {
  meta = await generateChain(
    { ...DEFAULT_PARAMS, blocks: 4, blockGas: 1_500_000, senders: 20, recipients: 20, seed: 11 },
    dir,
    () => {},
  );
  const config = parseGenesis(JSON.parse(readFileSync(files.genesis, 'utf8'))).config;
  calls = payloadsOf(readFileSync(files.chain), config);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('engine feeder', () => {
  it('turns every block of the chain file into a V3 payload', () => {
    expect(calls.map((c) => c.payload.blockNumber)).toEqual([1n, 2n, 3n, 4n]);
    expect(calls.reduce((n, c) => n + c.txs, 0)).toBe(meta.txs);
    expect(calls.every((c) => c.parentBeaconBlockRoot.length === 32 && c.versionedHashes.length === 0)).toBe(true);
  });

  it("drives the in-process EngineApi to the chain's head", async () => {
    const fed = await withNode(files, meta, startInProcess, (node) => feedPayloads(calls, node.engine));
    expect(fed).toMatchObject({ blocks: 4, txs: meta.txs, gas: meta.gasUsed, head: meta.headHash });
  });

  it("drives a spawned tern-exec over HTTP+JWT to the chain's head, which its user RPC then serves", async () => {
    const latest = await withNode(files, meta, spawnTernExec, async (node) => {
      const fed = await feedPayloads(calls, node.engine);
      expect(fed.head).toBe(meta.headHash);
      return node.user?.call<{ hash: string; stateRoot: string }>('eth_getBlockByNumber', ['latest', false]);
    });
    expect(latest).toMatchObject({ hash: meta.headHash, stateRoot: meta.headStateRoot });
  });

  it("runs the sink's preparation (the consensus client's encoding) once, before the first payload is timed", async () => {
    const seen: string[] = [];
    const valid = { status: 'VALID', validationError: null };
    const fed = await feedPayloads(calls, {
      prepare: (all) => seen.push(`prepare ${all.length}`),
      newPayload: async (c) => {
        seen.push(`newPayload ${c.payload.blockNumber}`);
        return valid;
      },
      forkchoiceUpdated: async () => valid,
    });
    expect(seen).toEqual(['prepare 4', 'newPayload 1', 'newPayload 2', 'newPayload 3', 'newPayload 4']);
    expect(fed.head).toBe(meta.headHash);
  });

  it('stops with the status when the node rejects a payload', async () => {
    // A wrong state root in block 2 (its hash recomputed by nobody): the node answers INVALID, blockhash mismatch.
    const bad = calls.map((c, i) => (i === 1 ? { ...c, payload: { ...c.payload, stateRoot: new Uint8Array(32) } } : c));
    await expect(withNode(files, meta, startInProcess, (node) => feedPayloads(bad, node.engine))).rejects.toThrow(
      /newPayload of block 2: INVALID blockhash mismatch/,
    );
  });
});
