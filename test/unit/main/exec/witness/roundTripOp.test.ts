// Every block of a local OP chain (built through the Engine API) rebuilt by execute-witness from its
// attributes, its parent header and its witness alone, with the block's hash coming back; plus the file's
// error cases, each one line naming what is wrong.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportedError } from '../../../../../src/main/common/errors.js';
import { executeWitnessFile } from '../../../../../src/main/exec/cmd/executeWitness.js';
import { TrieStateReader } from '../../../../../src/main/exec/state/trieReader.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { encodeHeader, type Header } from '../../../../../src/main/primitives/block/header.js';
import { bytes, hex } from '../engine/fixture.js';
import { serveTestChain, type TestRpc } from '../rpc/chain.js';
import { BLOCKHASH_CODE, buildOpChain, EMPTY_ACCOUNT, type OpChain, writeWitnessFile } from './opChain.js';

const work = mkdtempSync(join(tmpdir(), 'tern-witness-'));
let chain: OpChain;
let rpc: TestRpc;
const files: string[] = [];

beforeAll(async () => {
  chain = await buildOpChain();
  rpc = serveTestChain({ db: chain.fixture.db, store: chain.fixture.store });
  for (const [i, block] of chain.blocks.entries()) {
    const path = join(work, `block${i + 1}.json`);
    const file = await writeWitnessFile(chain, block, path);
    // The parent header exactly as eth_getBlockByHash serves it (extra block fields included).
    file.parentHeader = await rpc.call('eth_getBlockByHash', [hex(block.parentHash), false]);
    writeFileSync(path, JSON.stringify(file));
    files.push(path);
  }
}, 120_000);

afterAll(async () => {
  await chain?.fixture.close();
  rmSync(work, { recursive: true, force: true });
});

const load = (i: number) => JSON.parse(readFileSync(files[i] as string, 'utf8')) as Record<string, unknown>;

async function failure(file: unknown): Promise<string> {
  const path = join(work, 'bad.json');
  writeFileSync(path, typeof file === 'string' ? file : JSON.stringify(file));
  const err = await executeWitnessFile(path).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ReportedError);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('execute-witness on a local OP chain', () => {
  it('builds every block back to its hash from the witness alone', async () => {
    expect(files.length).toBe(6);
    // The chain does delete an account (so the witness must hold the sibling its deletion collapses).
    const store = chain.fixture.store;
    const genesis = store.headerByHash(chain.genesisHash) as Header;
    const empty = bytes(EMPTY_ACCOUNT);
    expect(new TrieStateReader(store.stateReader(), genesis.stateRoot).getAccount(empty)).toBeDefined();
    expect(store.stateReader().getAccount(empty)).toBeUndefined();
    for (const [i, block] of chain.blocks.entries()) {
      const out = await executeWitnessFile(files[i] as string);
      const header = chain.fixture.store.headerByHash(block.hash);
      expect(out.blockHash, `block ${i + 1}`).toBe(hex(block.hash));
      expect(out.stateRoot).toBe(hex(header?.stateRoot as Uint8Array));
      expect(out.receiptsRoot).toBe(hex(header?.receiptsRoot as Uint8Array));
      expect(out.gasUsed).toBe(`0x${header?.gasUsed.toString(16)}`);
      expect(out.logsBloom).toBe(hex(header?.logsBloom as Uint8Array));
    }
  }, 120_000);

  it('serves the same witness over debug_executionWitness, with ancestor headers for BLOCKHASH', async () => {
    const last = chain.blocks.length;
    const w = (await rpc.call('debug_executionWitness', [`0x${last.toString(16)}`])) as {
      state: string[];
      codes: string[];
      headers: Array<Record<string, string>>;
    };
    // The last block calls the BLOCKHASH(number - 3) contract: the parent down to block number - 3, as geth has it.
    expect(w.headers.map((h) => Number(h.number))).toEqual([last - 1, last - 2, last - 3]);
    const flat = new Set(load(last - 1).witness as string[]);
    for (const node of [...w.state, ...w.codes]) expect(flat.has(node)).toBe(true);
    await expect(rpc.call('debug_executionWitness', ['0x0'])).rejects.toThrow(/genesis/);
    await expect(rpc.call('debug_executionWitness', ['0x63'])).rejects.toThrow(/not found/);
  });

  it('fails on a missing preimage, naming its hash and what it was for', async () => {
    const last = chain.blocks.length;
    const file = load(last - 1);
    const witness = file.witness as string[];
    const hashOf = (p: string) => hex(keccak256(Buffer.from(p.slice(2), 'hex')));
    const without = (dropped: string) => failure({ ...file, witness: witness.filter((p) => p !== dropped) });
    // The state root node.
    const root = witness.find((p) => hashOf(p) === (file.parentHeader as Record<string, string>).stateRoot) as string;
    expect(await without(root)).toMatch(
      new RegExp(`preimage of ${hashOf(root)} \\(trie node\\) while reading account`),
    );
    // The BLOCKHASH contract's code.
    expect(await without(BLOCKHASH_CODE)).toContain(`${hashOf(BLOCKHASH_CODE)} (contract code)`);
    // BLOCKHASH(last - 3) is the parentHash of header last - 2, which the witness must hold.
    const ancestor = chain.fixture.store.headerByHash(chain.blocks[last - 3]?.hash as Uint8Array);
    const rlp = hex(encodeHeader(ancestor as Header));
    expect(witness).toContain(rlp);
    expect(await without(rlp)).toContain(`${hex(chain.blocks[last - 3]?.hash as Uint8Array)} (ancestor header)`);
  });

  it('fails on bad JSON, missing fields and bad field values', async () => {
    expect(await failure('{"rollupConfig": ')).toMatch(/not valid JSON/);
    const file = load(0);
    expect(await failure({ ...file, witness: undefined })).toMatch(/missing field\(s\): witness/);
    expect(await failure({ rollupConfig: file.rollupConfig })).toMatch(/parentHeader, attributes, witness/);
    expect(await failure([])).toMatch(/must be a JSON object/);
    expect(await failure({ ...file, witness: ['0x0g'] })).toMatch(/witness\[0\]/);
    const parent = file.parentHeader as Record<string, unknown>;
    expect(await failure({ ...file, parentHeader: { ...parent, stateRoot: '0x12' } })).toMatch(
      /parentHeader.stateRoot/,
    );
    expect(await failure({ ...file, parentHeader: { ...parent, gasUsed: '0x1' } })).toMatch(/parentHeader.hash/);
    const rollup = file.rollupConfig as Record<string, unknown>;
    expect(await failure({ ...file, rollupConfig: { ...rollup, l2_chain_id: undefined } })).toMatch(
      /rollupConfig: l2_chain_id/,
    );
    const attrs = file.attributes as Record<string, unknown>;
    expect(await failure({ ...file, attributes: { ...attrs, timestamp: 'soon' } })).toMatch(/attributes: timestamp/);
    expect(await failure({ ...file, attributes: { ...attrs, transactions: ['0x02'] } })).toMatch(/transaction/);
    const missing = await executeWitnessFile(join(work, 'nope.json')).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/cannot read witness file .*ENOENT/);
  });

  it('a rollup config with other fork times gives another block', async () => {
    const file = load(chain.blocks.length - 1);
    const rollup = { ...(file.rollupConfig as Record<string, unknown>), jovian_time: undefined };
    const path = join(work, 'other.json');
    writeFileSync(
      path,
      JSON.stringify({
        ...file,
        rollupConfig: rollup,
        attributes: { ...(file.attributes as object), minBaseFee: undefined },
      }),
    );
    const out = await executeWitnessFile(path).catch((e: unknown) => e as Error);
    expect('blockHash' in out ? out.blockHash : '').not.toBe(
      hex(chain.blocks[chain.blocks.length - 1]?.hash as Uint8Array),
    );
  });
});
