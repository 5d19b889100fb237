// The recording reader (what debug_executionWitness collects) and the preimage-backed reader (what stateless
// execution reads) over a small state: whatever the recorder saw while reading and committing is exactly enough
// for the preimage reader to read the same values and compute the same post-state root; one node less fails with
// its hash named.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { EMPTY_CODE_HASH } from '../../../../../src/main/exec/state/stateStore.js';
import { TrieStateReader } from '../../../../../src/main/exec/state/trieReader.js';
import { PreimageStore } from '../../../../../src/main/exec/witness/preimages.js';
import { RecordingNodeReader, RecordingStateReader } from '../../../../../src/main/exec/witness/recorder.js';
import { FaultLog, WitnessStateReader } from '../../../../../src/main/exec/witness/statelessReader.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { toHexKey } from '../../../../../src/main/primitives/bytes.js';
import { StateCommitment, type StateDiff } from '../../../../../src/main/primitives/trie/commitment.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { EMPTY_TRIE_ROOT } from '../../../../../src/main/primitives/trie/root.js';

const address = (i: number) => Uint8Array.from(Buffer.from(i.toString(16).padStart(40, '0'), 'hex'));
const slot = (i: number) => Uint8Array.from(Buffer.from(i.toString(16).padStart(64, '0'), 'hex'));
const CODE = Uint8Array.of(0x60, 0x01, 0x00);

/** 64 accounts, the first with code and 20 storage slots. */
function fixture() {
  const store = new MemoryNodeStore();
  const diff: StateDiff = { accounts: new Map() };
  for (let i = 1; i <= 64; i++) {
    const storage = new Map<string, bigint>();
    if (i === 1) for (let s = 1; s <= 20; s++) storage.set(toHexKey(slot(s)), BigInt(s * 1000));
    diff.accounts.set(toHexKey(address(i)), {
      nonce: BigInt(i),
      balance: BigInt(i) * 10n ** 18n,
      codeHash: i === 1 ? keccak256(CODE) : EMPTY_CODE_HASH,
      storage,
    });
  }
  const genesis = new StateCommitment(store).apply(EMPTY_TRIE_ROOT, diff);
  store.putAll(genesis.newNodes);
  const codeAndNodes = {
    get: (h: Uint8Array) => store.get(h),
    getCode: (h: Uint8Array) => (toHexKey(h) === toHexKey(keccak256(CODE)) ? CODE : new Uint8Array(0)),
  };
  return { root: genesis.root, codeAndNodes, store };
}

/** A block's effect: account 2 deleted, account 3 changed, slot 5 of account 1 deleted, slot 99 added. */
const blockDiff = (): StateDiff => ({
  accounts: new Map([
    [toHexKey(address(2)), null],
    [toHexKey(address(3)), { nonce: 4n, balance: 1n, codeHash: EMPTY_CODE_HASH, storage: new Map() }],
    [
      toHexKey(address(1)),
      {
        nonce: 1n,
        balance: 10n ** 18n,
        codeHash: keccak256(CODE),
        storage: new Map([
          [toHexKey(slot(5)), 0n],
          [toHexKey(slot(99)), 7n],
        ]),
      },
    ],
  ]),
});

/** Reads as execution would, through the recorder, then commits; returns the recording and the new root. */
function record() {
  const f = fixture();
  const nodes = new RecordingNodeReader(f.codeAndNodes);
  const reader = new RecordingStateReader(new TrieStateReader(nodes, f.root));
  const reads = {
    a1: reader.getAccount(address(1)),
    a3: reader.getAccount(address(3)),
    missing: reader.getAccount(address(1000)),
    s5: reader.getStorage(address(1), slot(5)),
    s6: reader.getStorage(address(1), slot(6)),
    code: reader.getCode(keccak256(CODE)),
  };
  const post = new StateCommitment(nodes).apply(f.root, blockDiff());
  return { f, nodes, reader, reads, post };
}

describe('RecordingNodeReader / RecordingStateReader', () => {
  it('records the nodes, code and keys read, and no more than the trie holds', () => {
    const { f, nodes, reader } = record();
    expect(nodes.nodes.size).toBeGreaterThan(2);
    expect(nodes.nodes.size).toBeLessThan(f.store.size);
    for (const [hash, rlp] of nodes.nodes) expect(toHexKey(keccak256(rlp))).toBe(hash);
    expect([...nodes.codes.values()]).toEqual([CODE]);
    expect([...reader.keys.keys()]).toEqual(
      [address(1), address(3), address(1000), slot(5), slot(6)].map((k) => toHexKey(k)),
    );
  });
});

describe('WitnessStateReader over the recorded preimages', () => {
  it('reads the same values and commits to the same root', () => {
    const { f, nodes, reads, post } = record();
    const preimages = new PreimageStore([...nodes.nodes.values(), ...nodes.codes.values()]);
    const reader = new WitnessStateReader(preimages, f.root, new FaultLog());
    expect(reader.getAccount(address(1))).toEqual(reads.a1);
    expect(reader.getAccount(address(3))).toEqual(reads.a3);
    expect(reader.getAccount(address(1000))).toBeUndefined();
    expect(reader.getStorage(address(1), slot(5))).toBe(5000n);
    expect(reader.getStorage(address(1), slot(6))).toBe(reads.s6);
    expect(reader.getCode(keccak256(CODE))).toEqual(CODE);
    expect(reader.getCode(EMPTY_CODE_HASH)).toEqual(new Uint8Array(0));
    expect(toHexKey(new StateCommitment(preimages).apply(f.root, blockDiff()).root)).toBe(toHexKey(post.root));
  });

  it('needs every recorded node: without any one of them, reading or committing names its hash', () => {
    const { f, nodes } = record();
    for (const [hash] of nodes.nodes) {
      const preimages = new PreimageStore([...nodes.nodes].filter(([h]) => h !== hash).map(([, rlp]) => rlp));
      preimages.add(CODE);
      const faults = new FaultLog();
      const reader = new WitnessStateReader(preimages, f.root, faults);
      let err: unknown;
      try {
        reader.getAccount(address(1));
        reader.getAccount(address(3));
        reader.getAccount(address(1000));
        reader.getStorage(address(1), slot(5));
        reader.getStorage(address(1), slot(6));
        new StateCommitment(preimages).apply(f.root, blockDiff());
      } catch (e) {
        err = e;
      }
      expect(err, `without ${hash}`).toBeInstanceOf(TernError);
      expect((err as Error).message).toContain(hash.slice(2));
      if (faults.first) {
        expect(faults.first.code).toBe('WITNESS_MISSING_PREIMAGE');
        expect(faults.first.message).toMatch(/while reading (account|slot)/);
      }
    }
  });

  it('names missing code, and keys preimages by their own hash', () => {
    const preimages = new PreimageStore([CODE]);
    expect(preimages.get(keccak256(CODE))).toEqual(CODE);
    const other = keccak256(Uint8Array.of(1));
    expect(() => preimages.getCode(other)).toThrow(`${toHexKey(other)} (contract code)`);
    const faults = new FaultLog();
    const reader = new WitnessStateReader(preimages, keccak256(Uint8Array.of(9)), faults);
    expect(() => reader.getAccount(address(1))).toThrow(/witness lacks the preimage of 0x[0-9a-f]{64} \(trie node\)/);
    expect(faults.first?.message).toContain(`reading account ${toHexKey(address(1))}`);
  });
});
