// The snap/1 server (devp2p snap.md): account and storage ranges with their boundary Merkle proofs, bytecodes and
// trie nodes, answered from the state tries this node keeps. Any state root whose root node is stored can be served
// (the roots the pruning keeps: --gcmode/--history.state), not only geth's 128 recent snapshot layers. An unknown root
// gets an empty answer, as geth gives. Limits follow geth's eth/protocols/snap/handler.go: the response size asked
// for is capped at 2 MiB (softResponseLimit), storage ranges stop mid-trie at that size plus 10 %, at most 1024 codes
// or trie nodes per request.

import type { KVReader } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import {
  asBytes,
  asList,
  bytesToBigint,
  type RlpDecoded,
  type RlpInput,
  rlpDecode,
  rlpEncode,
} from '../../primitives/rlp.js';
import type { NodeReader } from '../../primitives/trie/interface.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { readCode, readTrieNode } from '../db/state.js';
import { proveKey } from '../state/trieReader.js';
import type { SnapServer } from './peer.js';
import { compactToNibbles, leavesFrom, nodeAtPath } from './trieRange.js';

/** snap/1 message codes, relative to the protocol's offset. */
export const SnapCode = {
  getAccountRange: 0x00,
  accountRange: 0x01,
  getStorageRanges: 0x02,
  storageRanges: 0x03,
  getByteCodes: 0x04,
  byteCodes: 0x05,
  getTrieNodes: 0x06,
  trieNodes: 0x07,
} as const;

/** geth's softResponseLimit: the most bytes a reply carries whatever the request asks. */
export const SOFT_RESPONSE_LIMIT = 2 * 1024 * 1024;
/** geth's stateLookupSlack: how far past the byte budget a storage range may run before it is cut (with proofs). */
const STATE_LOOKUP_SLACK = 0.1;
/** geth's maxCodeLookups and maxTrieNodeLookups. */
export const MAX_CODE_LOOKUPS = 1024;
export const MAX_TRIE_NODE_LOOKUPS = 1024;

const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));
const ZERO_HASH = new Uint8Array(32);
const MAX_HASH = new Uint8Array(32).fill(0xff);

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
const compare = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b);

function bad(message: string): never {
  throw new TernError('SNAP_BAD_REQUEST', `bad snap/1 request: ${message}`);
}

function hash32(item: RlpDecoded | undefined, what: string): Uint8Array {
  const b = asBytes(item, what);
  if (b.length !== 32) bad(`${what} is ${b.length} bytes, not 32`);
  return b;
}

/** A request's response byte budget, capped as geth caps it. */
function budget(item: RlpDecoded | undefined): number {
  const n = bytesToBigint(asBytes(item, 'response bytes'), 'response bytes');
  return n > BigInt(SOFT_RESPONSE_LIMIT) ? SOFT_RESPONSE_LIMIT : Number(n);
}

/** The account as snap/1 sends it (geth's "slim" form): empty storage root and code hash left empty. */
function slimAccount(full: Uint8Array): Uint8Array {
  const f = asList(rlpDecode(full), 'account') as Uint8Array[];
  if (f.length !== 4) throw new TernError('SNAP_BAD_STATE', `stored account has ${f.length} fields`);
  const [nonce, balance, root, code] = f as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  return rlpEncode([
    nonce,
    balance,
    equal(root, EMPTY_TRIE_ROOT) ? new Uint8Array(0) : root,
    equal(code, EMPTY_CODE_HASH) ? new Uint8Array(0) : code,
  ]);
}

/** The storage root in a stored (full) account. */
function storageRootOf(full: Uint8Array): Uint8Array {
  return asBytes((asList(rlpDecode(full), 'account') as RlpDecoded[])[2], 'storage root');
}

/** One trie lookup of an account by its hashed address. */
function accountByHash(nodes: NodeReader, root: Uint8Array, hash: Uint8Array): Uint8Array | undefined {
  for (const [key, value] of leavesFrom(nodes, root, hash)) return equal(key, hash) ? value : undefined;
  return undefined;
}

export interface SnapServerSource {
  /** A consistent view of the chain database for one request. */
  snapshot(): KVReader & { release(): void };
}

/** Serves snap/1 from the tries and code in `source` (the chain database's key-value store). */
export function createSnapServer(source: SnapServerSource): SnapServer {
  return {
    async serve(code, payload) {
      let req: RlpDecoded[];
      try {
        req = asList(rlpDecode(payload), 'snap/1 request');
      } catch (err) {
        bad((err as Error).message);
      }
      const view = source.snapshot();
      try {
        const nodes: NodeReader = { get: (h) => readTrieNode(view, h) };
        const hasRoot = (root: Uint8Array) => equal(root, EMPTY_TRIE_ROOT) || nodes.get(root) !== undefined;
        switch (code) {
          case SnapCode.getAccountRange:
            return { code: SnapCode.accountRange, payload: accountRange(nodes, hasRoot, req) };
          case SnapCode.getStorageRanges:
            return { code: SnapCode.storageRanges, payload: storageRanges(nodes, hasRoot, req) };
          case SnapCode.getByteCodes:
            return { code: SnapCode.byteCodes, payload: byteCodes(view, req) };
          case SnapCode.getTrieNodes:
            return { code: SnapCode.trieNodes, payload: trieNodes(nodes, hasRoot, req) };
          default:
            return bad(`message code ${code} is not a request`);
        }
      } finally {
        view.release();
      }
    },
  };
}

/** GetAccountRange [reqID, root, origin, limit, bytes] → AccountRange [reqID, [[hash, slim account]...], proof]. */
function accountRange(nodes: NodeReader, hasRoot: (r: Uint8Array) => boolean, req: RlpDecoded[]): Uint8Array {
  if (req.length < 5) bad(`GetAccountRange has ${req.length} fields`);
  const id = asBytes(req[0], 'request id');
  const root = hash32(req[1], 'root');
  const origin = hash32(req[2], 'origin');
  const limit = hash32(req[3], 'limit');
  const bytes = budget(req[4]);
  if (!hasRoot(root)) return rlpEncode([id, [], []]);
  const accounts: RlpInput[] = [];
  let size = 0;
  let last: Uint8Array | undefined;
  if (!equal(root, EMPTY_TRIE_ROOT)) {
    for (const [hash, value] of leavesFrom(nodes, root, origin)) {
      const body = slimAccount(value);
      last = hash;
      size += 32 + body.length;
      accounts.push([hash, body]);
      // The first account at or past the limit is included: it proves there is nothing else up to the limit.
      if (compare(hash, limit) >= 0 || size > bytes) break;
    }
  }
  const proof = proofOf(nodes, root, origin, last);
  return rlpEncode([id, accounts, proof]);
}

/** The boundary proofs of a range: origin's path and, when the range holds anything, the last key's (deduplicated). */
function proofOf(nodes: NodeReader, root: Uint8Array, origin: Uint8Array, last: Uint8Array | undefined): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const key of last === undefined ? [origin] : [origin, last]) {
    for (const node of proveKey(nodes, root, key)) {
      const k = Buffer.from(node).toString('hex');
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(node);
    }
  }
  return out;
}

/**
 * GetStorageRanges [reqID, root, [account hash...], origin, limit, bytes] → StorageRanges [reqID, [[[hash, value]...]...],
 * proof]: whole storage tries without proofs, and for the last one (started at an origin or cut at the size limit)
 * the boundary proofs, which end the reply.
 */
function storageRanges(nodes: NodeReader, hasRoot: (r: Uint8Array) => boolean, req: RlpDecoded[]): Uint8Array {
  if (req.length < 6) bad(`GetStorageRanges has ${req.length} fields`);
  const id = asBytes(req[0], 'request id');
  const root = hash32(req[1], 'root');
  const accounts = asList(req[2], 'account hashes').map((a) => hash32(a, 'account hash'));
  const originRaw = asBytes(req[3], 'origin');
  const limitRaw = asBytes(req[4], 'limit');
  if (originRaw.length > 32 || limitRaw.length > 32) bad('origin or limit longer than 32 bytes');
  const bytes = budget(req[5]);
  const hardLimit = Math.floor(bytes * (1 + STATE_LOOKUP_SLACK));
  if (!hasRoot(root) || equal(root, EMPTY_TRIE_ROOT)) return rlpEncode([id, [], []]);
  const slots: RlpInput[] = [];
  let proof: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; i < accounts.length; i++) {
    if (size >= bytes) break;
    // Origin and limit apply to the first account only.
    const origin = i === 0 && originRaw.length > 0 ? leftPad(originRaw) : ZERO_HASH;
    const limit = i === 0 && limitRaw.length > 0 ? leftPad(limitRaw) : MAX_HASH;
    const account = accountByHash(nodes, root, accounts[i]!);
    // geth answers nothing more once an account is not in this state.
    if (account === undefined) break;
    const storageRoot = storageRootOf(account);
    const storage: RlpInput[] = [];
    let last: Uint8Array | undefined;
    let abort = false;
    if (!equal(storageRoot, EMPTY_TRIE_ROOT)) {
      for (const [hash, value] of leavesFrom(nodes, storageRoot, origin)) {
        if (size >= hardLimit) {
          abort = true;
          break;
        }
        last = hash;
        size += 32 + value.length;
        storage.push([hash, value]);
        if (compare(hash, limit) >= 0) break;
      }
    }
    if (storage.length > 0) slots.push(storage);
    if (!equal(origin, ZERO_HASH) || (abort && storage.length > 0)) {
      proof = proofOf(nodes, storageRoot, origin, last);
      break;
    }
  }
  return rlpEncode([id, slots, proof]);
}

function leftPad(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** GetByteCodes [reqID, [hash...], bytes] → ByteCodes [reqID, [code...]]: the codes found, in order, within the budget. */
function byteCodes(kv: KVReader, req: RlpDecoded[]): Uint8Array {
  if (req.length < 3) bad(`GetByteCodes has ${req.length} fields`);
  const id = asBytes(req[0], 'request id');
  const hashes = asList(req[1], 'code hashes').slice(0, MAX_CODE_LOOKUPS);
  const bytes = budget(req[2]);
  const codes: Uint8Array[] = [];
  let size = 0;
  for (const item of hashes) {
    const hash = hash32(item, 'code hash');
    if (equal(hash, EMPTY_CODE_HASH)) codes.push(new Uint8Array(0));
    else {
      const code = readCode(kv, hash);
      if (code !== undefined) {
        codes.push(code);
        size += code.length;
      }
    }
    if (size > bytes) break;
  }
  return rlpEncode([id, codes]);
}

/**
 * GetTrieNodes [reqID, root, [[account path, slot path...]...], bytes] → TrieNodes [reqID, [node...]]: a path set of
 * one path names an account-trie node; longer ones name nodes of that account's storage trie (the first entry is then
 * the account's full hashed key). Paths are hex-prefix encoded.
 */
function trieNodes(nodes: NodeReader, hasRoot: (r: Uint8Array) => boolean, req: RlpDecoded[]): Uint8Array {
  if (req.length < 4) bad(`GetTrieNodes has ${req.length} fields`);
  const id = asBytes(req[0], 'request id');
  const root = hash32(req[1], 'root');
  const sets = asList(req[2], 'path sets');
  const bytes = budget(req[3]);
  if (!hasRoot(root) || equal(root, EMPTY_TRIE_ROOT)) return rlpEncode([id, []]);
  const out: Uint8Array[] = [];
  let size = 0;
  let lookups = 0;
  const push = (node: Uint8Array | undefined) => {
    const n = node ?? new Uint8Array(0);
    out.push(n);
    size += n.length;
  };
  for (const set of sets) {
    const paths = asList(set, 'path set').map((p) => asBytes(p, 'path'));
    if (paths.length === 0) bad('empty path set');
    if (paths.length === 1) {
      push(nodeAtPath(nodes, root, compactToNibbles(paths[0]!)));
      lookups++;
    } else {
      const accountKey = paths[0]!;
      if (accountKey.length !== 32) bad('storage path set without a full account hash');
      const account = accountByHash(nodes, root, accountKey);
      if (account === undefined) break;
      const storageRoot = storageRootOf(account);
      for (const p of paths.slice(1)) {
        push(equal(storageRoot, EMPTY_TRIE_ROOT) ? undefined : nodeAtPath(nodes, storageRoot, compactToNibbles(p)));
        lookups++;
        if (size > bytes || lookups >= MAX_TRIE_NODE_LOOKUPS) break;
      }
    }
    if (size > bytes || lookups >= MAX_TRIE_NODE_LOOKUPS) break;
  }
  return rlpEncode([id, out]);
}
