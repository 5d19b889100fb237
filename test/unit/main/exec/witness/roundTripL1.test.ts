// The execution-apis chain (20 Cancun blocks with contracts, storage, BLOCKHASH and self-destructs): for every
// block, debug_executionWitness, then stateless re-execution from the witness alone must give the block's hash.
// execute-witness builds OP blocks from a rollup config; an Ethereum chain has neither, so this exercises the core
// stateless executor directly (reexecuteStateless), which shares the preimage readers and the trie with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { headerFromJson } from '../../../../../src/main/exec/witness/json.js';
import { PreimageStore } from '../../../../../src/main/exec/witness/preimages.js';
import { reexecuteStateless } from '../../../../../src/main/exec/witness/stateless.js';
import { type ExecutionWitnessJson, preimagesFromJson } from '../../../../../src/main/exec/witness/witness.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { Block } from '../../../../../src/main/primitives/block/block.js';
import { encodeHeader } from '../../../../../src/main/primitives/block/header.js';
import { buildTestChain, serveTestChain, type TestRpc } from '../rpc/chain.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

let rpc: TestRpc;
const witnesses = new Map<number, ExecutionWitnessJson>();
const blocks = new Map<number, { block: Block; hash: Uint8Array }>();

beforeAll(async () => {
  rpc = serveTestChain(await buildTestChain(logger));
  const head = Number(rpc.store.head().number);
  for (let n = 1; n <= head; n++) {
    witnesses.set(n, (await rpc.call('debug_executionWitness', [`0x${n.toString(16)}`])) as ExecutionWitnessJson);
    const hash = rpc.store.canonicalHash(BigInt(n)) as Uint8Array;
    const block = rpc.store.blockByHash(hash);
    if (block) blocks.set(n, { block, hash });
  }
}, 120_000);

afterAll(async () => {
  await rpc?.db.close();
});

async function reexecute(n: number, preimages: Uint8Array[]) {
  const w = witnesses.get(n) as ExecutionWitnessJson;
  const { block } = blocks.get(n) as { block: Block };
  return reexecuteStateless({
    config: rpc.store.config(),
    parent: headerFromJson(w.headers[0], 'parent'),
    block,
    preimages: new PreimageStore(preimages),
  });
}

describe('debug_executionWitness → stateless re-execution (execution-apis chain)', () => {
  it('serves geth-shaped witnesses whose first header is the parent', () => {
    expect(blocks.size).toBe(witnesses.size);
    for (const [n, w] of witnesses) {
      expect(Object.keys(w).sort()).toEqual(['codes', 'headers', 'keys', 'state']);
      expect(w.headers[0]?.number).toBe(`0x${(n - 1).toString(16)}`);
      expect(w.state.length).toBeGreaterThan(0);
    }
  });

  it('gets every block hash back from its witness alone', async () => {
    for (const n of witnesses.keys()) {
      const out = await reexecute(n, preimagesFromJson(witnesses.get(n), 'witness'));
      expect(hex(out.hash), `block ${n}`).toBe(hex((blocks.get(n) as { hash: Uint8Array }).hash));
    }
  }, 120_000);

  it('names the hash of a state node the witness lacks', async () => {
    const n = [...witnesses.keys()].find((k) => (witnesses.get(k)?.state.length ?? 0) > 3) as number;
    const w = witnesses.get(n) as ExecutionWitnessJson;
    // Every recorded node was read by execution or the root computation, so dropping any one must fail.
    for (const dropped of w.state.slice(0, 40)) {
      const hash = hex(keccak256(Buffer.from(dropped.slice(2), 'hex')));
      const rest = preimagesFromJson({ ...w, state: w.state.filter((s) => s !== dropped) }, 'witness');
      const err = await reexecute(n, rest).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TernError);
      expect((err as TernError).code).toBe('WITNESS_MISSING_PREIMAGE');
      expect((err as TernError).message).toContain(hash);
    }
  }, 60_000);

  it('names the hash of contract code the witness lacks', async () => {
    const n = [...witnesses.keys()].find((k) => (witnesses.get(k)?.codes.length ?? 0) > 0);
    expect(n, 'some block of the chain reads contract code').toBeDefined();
    const w = witnesses.get(n as number) as ExecutionWitnessJson;
    const dropped = w.codes[0] as string;
    const err = await reexecute(n as number, preimagesFromJson({ ...w, codes: w.codes.slice(1) }, 'witness')).catch(
      (e: unknown) => e,
    );
    expect((err as TernError).code).toBe('WITNESS_MISSING_PREIMAGE');
    expect((err as TernError).message).toContain(hex(keccak256(Buffer.from(dropped.slice(2), 'hex'))));
    expect((err as TernError).message).toContain('contract code');
  }, 60_000);

  it('a witness of another block does not give this block', async () => {
    const n = [...witnesses.keys()].find((k) => k > 2) as number;
    const err = await reexecute(n, preimagesFromJson(witnesses.get(n - 1), 'witness')).catch((e: unknown) => e);
    expect((err as TernError).code).toBe('WITNESS_MISSING_PREIMAGE');
  });

  // This chain never executes BLOCKHASH (one header each); the OP chain test covers ancestor headers.
  it('includes the headers BLOCKHASH needs, and the parent header RLP hashes to the parent hash', () => {
    for (const [n, w] of witnesses) {
      const parent = headerFromJson(w.headers[0], 'parent');
      expect(hex(keccak256(encodeHeader(parent)))).toBe(
        hex((blocks.get(n) as { block: Block }).block.header.parentHash),
      );
      for (let i = 1; i < w.headers.length; i++) expect(w.headers[i]?.hash).toBe(w.headers[i - 1]?.parentHash);
    }
  });
});
