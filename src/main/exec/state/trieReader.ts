// The state of any imported block: the flat state when the block is the head of the view (fast: one key per
// account or slot), otherwise the Merkle-Patricia trie under the block's state root (every node of every block is
// kept, hash scheme). Also the Merkle proofs of eth_getProof, walked over the same node store.
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { asBytes, bytesToBigint, rlpDecode } from '../../primitives/rlp.js';
import type { NodeReader } from '../../primitives/trie/interface.js';
import { MerkleTrie } from '../../primitives/trie/merkleTrie.js';
import {
  BRANCH,
  decodeNode,
  EMBEDDED,
  EXTENSION,
  HASH,
  hashOf,
  hashRef,
  LEAF,
  type Ref,
  toNibbles,
} from '../../primitives/trie/node.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import type { AccountRecord, StateReader } from './interface.js';
import { decodeAccountRecord } from './stateStore.js';

/** Code by hash and trie nodes by hash: what the trie-backed reader needs besides the root. */
export interface CodeAndNodes extends NodeReader {
  getCode(codeHash: Uint8Array): Uint8Array;
}

const isEmptyRoot = (root: Uint8Array | undefined): boolean =>
  root === undefined || Buffer.compare(root, EMPTY_TRIE_ROOT) === 0;

/** Account and storage reads through the tries of one state root. */
export class TrieStateReader implements StateReader {
  readonly #trie: MerkleTrie;
  readonly #accounts = new Map<string, AccountRecord | undefined>();

  constructor(
    private readonly store: CodeAndNodes,
    readonly root: Uint8Array,
  ) {
    this.#trie = new MerkleTrie(store);
  }

  getAccount(address: Uint8Array): AccountRecord | undefined {
    const key = Buffer.from(address).toString('hex');
    if (this.#accounts.has(key)) return this.#accounts.get(key);
    const raw = this.#trie.get(this.root, keccak256(address));
    const account = raw === undefined ? undefined : decodeAccountRecord(raw);
    this.#accounts.set(key, account);
    return account;
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    const root = this.getAccount(address)?.storageRoot;
    if (root === undefined || isEmptyRoot(root)) return 0n;
    const raw = this.#trie.get(root, keccak256(slot));
    return raw === undefined ? 0n : bytesToBigint(asBytes(rlpDecode(raw), 'storage value'), 'storage value');
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    return this.store.getCode(codeHash);
  }
}

/**
 * The proof of `key` (already hashed for the secure tries) in the trie at `root`, as geth's Trie.Prove lists it:
 * the RLP of every node on the path from the root that is stored by hash (nodes embedded in their parent are part
 * of the parent's RLP), down to where the key's path ends or leaves the trie. An empty trie has an empty proof.
 */
export function proveKey(nodes: NodeReader, root: Uint8Array, key: Uint8Array): Uint8Array[] {
  const proof: Uint8Array[] = [];
  if (isEmptyRoot(root)) return proof;
  const nib = toNibbles(key);
  let ref: Ref | null = hashRef(root);
  let pos = 0;
  while (ref !== null) {
    let rlp: Uint8Array;
    if (ref.t === HASH) {
      const hash = hashOf(ref);
      const stored = nodes.get(hash);
      if (stored === undefined) throw missingNode(hash);
      rlp = stored;
      proof.push(rlp);
    } else if (ref.t === EMBEDDED) {
      rlp = ref.rlp;
    } else {
      break;
    }
    const node = decodeNode(rlp);
    if (node.t === LEAF) break;
    if (node.t === EXTENSION) {
      const p = node.path;
      let i = 0;
      while (i < p.length && pos + i < nib.length && nib[pos + i] === p[i]) i++;
      if (i !== p.length) break;
      pos += p.length;
      ref = node.child;
    } else if (node.t === BRANCH) {
      if (pos >= nib.length) break;
      ref = node.children[nib[pos] as number] ?? null;
      pos++;
    }
  }
  return proof;
}

function missingNode(hash: Uint8Array): TernError {
  return new TernError('TRIE_MISSING_NODE', `missing trie node ${Buffer.from(hash).toString('hex')}`);
}
