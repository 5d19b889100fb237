// The snap/1 server over the execution-apis test chain's state: every range it answers must verify against the
// state root with an independent range-proof verifier (@ethereumjs/mpt's verifyMerkleRangeProof), bytecodes must
// hash to what was asked, trie nodes to their place in the trie; unknown roots and bad requests answered as geth does.
import { verifyMerkleRangeProof } from '@ethereumjs/mpt';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SnapServer } from '../../../../../src/main/exec/sync/peer.js';
import { createSnapServer, SnapCode } from '../../../../../src/main/exec/sync/snapServer.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { type RlpDecoded, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { EMPTY_TRIE_ROOT } from '../../../../../src/main/primitives/trie/root.js';
import { emptyNode, opened } from './syncFixture.js';

const ZERO = new Uint8Array(32);
const MAX = new Uint8Array(32).fill(0xff);
const EMPTY_CODE = keccak256(new Uint8Array(0));
const id = Uint8Array.of(7);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

let server: SnapServer;
let root: Uint8Array;

beforeAll(async () => {
  const node = await emptyNode(20);
  server = createSnapServer({ snapshot: () => node.db.kv.snapshot() });
  root = node.store.head().header.stateRoot;
  return async () => {
    for (const o of opened.splice(0)) await o.close();
  };
});

const list = (x: RlpDecoded) => x as RlpDecoded[];
const bytes = (x: RlpDecoded) => x as Uint8Array;

async function ask(code: number, req: unknown[]): Promise<RlpDecoded[]> {
  const r = await server.serve(code, rlpEncode(req as Parameters<typeof rlpEncode>[0]));
  expect(r.code).toBe(code + 1);
  const reply = list(rlpDecode(r.payload));
  expect(bytes(reply[0]!)).toEqual(id);
  return reply;
}

/** The slim account back to the trie's form: the verifier checks values as stored in the trie. */
function fullAccount(slim: Uint8Array): Uint8Array {
  const [nonce, balance, sroot, code] = list(rlpDecode(slim)) as Uint8Array[];
  return rlpEncode([
    nonce!,
    balance!,
    sroot!.length === 0 ? EMPTY_TRIE_ROOT : sroot!,
    code!.length === 0 ? EMPTY_CODE : code!,
  ]);
}

async function accountRange(origin: Uint8Array, limit: Uint8Array, budget: number, at = root) {
  const [, accounts, proof] = await ask(SnapCode.getAccountRange, [id, at, origin, limit, budget]);
  const entries = list(accounts!).map((a) => list(a) as Uint8Array[]);
  return { keys: entries.map((e) => e[0]!), slim: entries.map((e) => e[1]!), proof: list(proof!) as Uint8Array[] };
}

describe('snap/1 server', () => {
  it('serves the whole account range with boundary proofs that verify against the state root', async () => {
    const r = await accountRange(ZERO, MAX, 1 << 20);
    expect(r.keys.length).toBeGreaterThan(3);
    const more = await verifyMerkleRangeProof(root, ZERO, r.keys.at(-1)!, r.keys, r.slim.map(fullAccount), r.proof);
    expect(more).toBe(false);
    // Tampering with one account makes the proof fail: the verifier really checks.
    const tampered = r.slim.map(fullAccount);
    tampered[1] = rlpEncode([1n, 1n, EMPTY_TRIE_ROOT, EMPTY_CODE]);
    await expect(verifyMerkleRangeProof(root, ZERO, r.keys.at(-1)!, r.keys, tampered, r.proof)).rejects.toThrow();
  });

  it('cuts a range at the byte budget, and the next range from there verifies too', async () => {
    const all = await accountRange(ZERO, MAX, 1 << 20);
    const first = await accountRange(ZERO, MAX, 1);
    // One account: the budget is passed after the first.
    expect(first.keys).toHaveLength(1);
    expect(
      await verifyMerkleRangeProof(root, ZERO, first.keys[0]!, first.keys, first.slim.map(fullAccount), first.proof),
    ).toBe(true);
    const origin = Uint8Array.from(first.keys[0]!);
    origin[31]! += 1;
    const rest = await accountRange(origin, MAX, 1 << 20);
    expect([...first.keys, ...rest.keys].map((k) => Buffer.from(k).toString('hex'))).toEqual(
      all.keys.map((k) => Buffer.from(k).toString('hex')),
    );
    expect(
      await verifyMerkleRangeProof(root, origin, rest.keys.at(-1)!, rest.keys, rest.slim.map(fullAccount), rest.proof),
    ).toBe(false);
  });

  it('stops at the first account at or past the limit', async () => {
    const all = await accountRange(ZERO, MAX, 1 << 20);
    const limit = all.keys[2]!;
    const r = await accountRange(ZERO, limit, 1 << 20);
    expect(r.keys).toHaveLength(3);
    expect(await verifyMerkleRangeProof(root, ZERO, r.keys.at(-1)!, r.keys, r.slim.map(fullAccount), r.proof)).toBe(
      true,
    );
  });

  it('answers an unknown root with nothing, and a range past the last account with a proof of absence', async () => {
    const unknown = await accountRange(ZERO, MAX, 1 << 20, new Uint8Array(32).fill(3));
    expect(unknown.keys).toEqual([]);
    expect(unknown.proof).toEqual([]);
    const all = await accountRange(ZERO, MAX, 1 << 20);
    const past = Uint8Array.from(all.keys.at(-1)!);
    past[31]! += 1;
    const none = await accountRange(past, MAX, 1 << 20);
    expect(none.keys).toEqual([]);
    expect(none.proof.length).toBeGreaterThan(0);
    expect(await verifyMerkleRangeProof(root, past, null, [], [], none.proof)).toBe(false);
  });

  it('serves storage ranges: whole tries without proofs, a range from an origin with proofs', async () => {
    const all = await accountRange(ZERO, MAX, 1 << 20);
    const withStorage = all.keys.filter(
      (_, i) =>
        list(rlpDecode(all.slim[i]!))[2] instanceof Uint8Array &&
        (list(rlpDecode(all.slim[i]!))[2] as Uint8Array).length > 0,
    );
    expect(withStorage.length).toBeGreaterThan(0);
    const account = withStorage[0]!;
    const storageRoot = list(rlpDecode(all.slim[all.keys.indexOf(account)]!))[2] as Uint8Array;
    const [, slots, proof] = await ask(SnapCode.getStorageRanges, [
      id,
      root,
      [account],
      new Uint8Array(0),
      new Uint8Array(0),
      1 << 20,
    ]);
    const entries = list(list(slots!)[0]!).map((e) => list(e) as Uint8Array[]);
    expect(list(proof!)).toEqual([]);
    // The whole trie: building it from the slots gives the account's storage root.
    await verifyMerkleRangeProof(
      storageRoot,
      null,
      null,
      entries.map((e) => e[0]!),
      entries.map((e) => e[1]!),
      null,
    );
    // From the second slot on (when there is one): a proven range.
    if (entries.length > 1) {
      const origin = entries[1]![0]!;
      const [, s2, p2] = await ask(SnapCode.getStorageRanges, [
        id,
        root,
        [account],
        origin,
        new Uint8Array(0),
        1 << 20,
      ]);
      const e2 = list(list(s2!)[0]!).map((e) => list(e) as Uint8Array[]);
      expect(e2).toHaveLength(entries.length - 1);
      expect(list(p2!).length).toBeGreaterThan(0);
      await verifyMerkleRangeProof(
        storageRoot,
        origin,
        e2.at(-1)![0]!,
        e2.map((e) => e[0]!),
        e2.map((e) => e[1]!),
        list(p2!) as Uint8Array[],
      );
    }
  });

  it('serves bytecodes by hash (empty code without a lookup, unknown ones left out)', async () => {
    const all = await accountRange(ZERO, MAX, 1 << 20);
    const codeHashes = all.slim.map((s) => list(rlpDecode(s))[3] as Uint8Array).filter((h) => h.length === 32);
    expect(codeHashes.length).toBeGreaterThan(0);
    const [, codes] = await ask(SnapCode.getByteCodes, [
      id,
      [codeHashes[0]!, EMPTY_CODE, new Uint8Array(32).fill(9)],
      1 << 20,
    ]);
    const got = list(codes!) as Uint8Array[];
    expect(got).toHaveLength(2);
    expect(hex(keccak256(got[0]!))).toBe(hex(codeHashes[0]!));
    expect(got[1]).toEqual(new Uint8Array(0));
  });

  it('serves trie nodes by path: the root for the empty path, a child under its nibble', async () => {
    const [, nodes] = await ask(SnapCode.getTrieNodes, [
      id,
      root,
      [[Uint8Array.of(0x00)], [Uint8Array.of(0x10)], [Uint8Array.of(0x00, 0x12)]],
      1 << 20,
    ]);
    const got = list(nodes!) as Uint8Array[];
    expect(got).toHaveLength(3);
    expect(hex(keccak256(got[0]!))).toBe(hex(root));
    // Path nibble 0 (odd-length compact 0x10): the root branch's child 0, a node whose hash the root names.
    const rootItems = list(rlpDecode(got[0]!)) as Uint8Array[];
    if (got[1]!.length > 0) expect(hex(keccak256(got[1]!))).toBe(hex(rootItems[0]!));
    else expect(rootItems[0]!.length).not.toBe(32);
  });

  it('refuses malformed requests with a clear error', async () => {
    await expect(server.serve(SnapCode.getAccountRange, Uint8Array.of(0xff))).rejects.toThrow(/snap\/1 request/);
    await expect(server.serve(SnapCode.getAccountRange, rlpEncode([id, root, ZERO]))).rejects.toThrow(
      /GetAccountRange has 3 fields/,
    );
    await expect(
      server.serve(SnapCode.getAccountRange, rlpEncode([id, Uint8Array.of(1), ZERO, MAX, 10])),
    ).rejects.toThrow(/root is 1 bytes/);
    await expect(server.serve(SnapCode.accountRange, rlpEncode([id]))).rejects.toThrow(/not a request/);
  });
});
