//! Merkle-Patricia trie roots of a complete key set (yellow paper, appendix D), built in one pass over the sorted
//! keys. No node objects: each node is encoded into a reused buffer as soon as its children are, then hashed
//! (32 bytes or more) or embedded in its parent (under 32 bytes). The root is hashed whatever its length.
//!
//! Recursion depth grows with the number of branch and extension nodes on the deepest path (at most 2 per nibble
//! of the longest key; about 2 × 5 for 100,000 random 32-byte keys), so raw keys are limited to [`MAX_KEY_LEN`]
//! bytes: a thread stack cannot overflow (release builds abort rather than unwind).

use crate::keccak::{DIGEST_LEN, keccak256, keccak256_into};
use crate::rlp::{self, EMPTY_STRING, MAX_HEADER, STRING};

/// keccak-256 of RLP("") (0x80): the root of the empty trie.
pub const EMPTY_ROOT: [u8; 32] = [
    0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
    0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
];

/// Longest raw key [`trie_root`] accepts (hashed keys are 32 bytes, RLP indexes at most 9).
pub const MAX_KEY_LEN: usize = 256;

#[inline]
fn nibble(key: &[u8], i: usize) -> u8 {
    let b = key[i >> 1];
    if i & 1 == 0 { b >> 4 } else { b & 0x0f }
}

/// Appends the hex-prefix (compact) encoding of key nibbles [from, to), as an RLP string.
fn push_compact(out: &mut Vec<u8>, key: &[u8], from: usize, to: usize, leaf: bool) {
    let n = to - from;
    let odd = n & 1;
    let flag = ((if leaf { 2 } else { 0 }) | odd as u8) << 4;
    let len = n / 2 + 1;
    // The flag byte is below 0x80, so a path of one byte is its own encoding.
    if len > 1 {
        rlp::push_header(out, len, STRING);
    }
    let mut i = from;
    if odd == 1 {
        out.push(flag | nibble(key, from));
        i += 1;
    } else {
        out.push(flag);
    }
    // After the flag byte the path is byte-aligned in the key whenever it starts on an even nibble (always true
    // of a leaf's path, which runs to the end of the key), so most paths are one copy.
    if i & 1 == 0 {
        out.extend_from_slice(&key[i / 2..to / 2]);
        return;
    }
    while i < to {
        out.push((nibble(key, i) << 4) | nibble(key, i + 1));
        i += 2;
    }
}

/// Appends how a parent refers to the node encoded as `enc`: the encoding itself when shorter than 32 bytes, else
/// the RLP string of its hash.
#[inline]
fn push_ref(out: &mut Vec<u8>, enc: &[u8]) {
    if enc.len() < 32 {
        out.extend_from_slice(enc);
    } else {
        out.push(STRING + DIGEST_LEN as u8);
        let at = out.len();
        out.resize(at + DIGEST_LEN, 0);
        if let Some(digest) = out[at..].first_chunk_mut::<DIGEST_LEN>() {
            keccak256_into(enc, digest);
        }
    }
}

struct Builder<'a, 'k> {
    keys: &'k [&'a [u8]],
    values: &'k [&'a [u8]],
    /// Encoding buffers, one per recursion level in use, reused across siblings.
    pool: Vec<Vec<u8>>,
}

impl Builder<'_, '_> {
    fn take(&mut self) -> Vec<u8> {
        let mut buf = self.pool.pop().unwrap_or_else(|| Vec::with_capacity(600));
        buf.clear();
        buf.resize(MAX_HEADER, 0);
        buf
    }

    /// Encodes the node holding keys[lo, hi) (all sharing their first `depth` nibbles) into a fresh buffer and
    /// appends its reference to `out`.
    fn push_node_ref(&mut self, out: &mut Vec<u8>, lo: usize, hi: usize, depth: usize) {
        let mut buf = self.take();
        let start = self.node(&mut buf, lo, hi, depth);
        push_ref(out, &buf[start..]);
        self.pool.push(buf);
    }

    /// Writes the node holding keys[lo, hi) as a list payload after the reserved header room of `buf`; returns
    /// where its encoding starts.
    fn node(&mut self, buf: &mut Vec<u8>, lo: usize, hi: usize, depth: usize) -> usize {
        let first = self.keys[lo];
        if hi - lo == 1 {
            push_compact(buf, first, depth, first.len() * 2, true);
            rlp::push_string(buf, self.values[lo]);
            return rlp::finish_list(buf);
        }
        // Sorted keys: what the first and the last share, all share.
        let last = self.keys[hi - 1];
        let end = first.len().min(last.len()) * 2;
        let mut d = depth;
        while d < end && nibble(first, d) == nibble(last, d) {
            d += 1;
        }
        if d == depth {
            self.branch(buf, lo, hi, depth);
        } else {
            push_compact(buf, first, depth, d, false);
            let mut child = self.take();
            self.branch(&mut child, lo, hi, d);
            let start = rlp::finish_list(&mut child);
            push_ref(buf, &child[start..]);
            self.pool.push(child);
        }
        rlp::finish_list(buf)
    }

    /// Writes the payload of the branch holding keys[lo, hi) at nibble `depth` (at least two keys).
    fn branch(&mut self, buf: &mut Vec<u8>, lo: usize, hi: usize, depth: usize) {
        let mut i = lo;
        // A key ending here sorts before every longer key under it and is the branch's value.
        let value = if self.keys[i].len() * 2 == depth {
            i += 1;
            Some(self.values[lo])
        } else {
            None
        };
        let mut slot = 0u8;
        while i < hi {
            let n = nibble(self.keys[i], depth);
            let mut j = i + 1;
            while j < hi && nibble(self.keys[j], depth) == n {
                j += 1;
            }
            while slot < n {
                buf.push(EMPTY_STRING);
                slot += 1;
            }
            self.push_node_ref(buf, i, j, depth + 1);
            slot += 1;
            i = j;
        }
        while slot < 16 {
            buf.push(EMPTY_STRING);
            slot += 1;
        }
        match value {
            Some(v) => rlp::push_string(buf, v),
            None => buf.push(EMPTY_STRING),
        }
    }
}

/// Root of the trie holding `values[i]` under `keys[i]` (equal lengths, keys at most [`MAX_KEY_LEN`] bytes). Any
/// order; of equal keys the later entry wins; an empty value means the key is absent.
pub fn trie_root(keys: &[&[u8]], values: &[&[u8]]) -> [u8; 32] {
    debug_assert_eq!(keys.len(), values.len());
    // Sort on the first 8 bytes as a number (zero-padded) first: most comparisons end there, without a memcmp.
    // Of equal keys the later index sorts later, so the order is the stable one.
    let mut order: Vec<(u64, u32)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (prefix_u64(k), i as u32))
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| keys[a.1 as usize].cmp(keys[b.1 as usize]))
            .then(a.1.cmp(&b.1))
    });
    let ids: Vec<u32> = order.iter().map(|o| o.1).collect();
    dedup_root(keys, values, &ids)
}

/// The first 8 bytes of `key` as a big-endian number, zero-padded.
fn prefix_u64(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

/// Root over the entries in `order` (sorted by key, equal keys in input order): the last of equal keys is kept,
/// empty values are dropped.
fn dedup_root(keys: &[&[u8]], values: &[&[u8]], order: &[u32]) -> [u8; 32] {
    let mut sorted_keys: Vec<&[u8]> = Vec::with_capacity(order.len());
    let mut sorted_values: Vec<&[u8]> = Vec::with_capacity(order.len());
    for (n, &at) in order.iter().enumerate() {
        let at = at as usize;
        if let Some(&next) = order.get(n + 1)
            && keys[next as usize] == keys[at]
        {
            continue;
        }
        if values[at].is_empty() {
            continue;
        }
        sorted_keys.push(keys[at]);
        sorted_values.push(values[at]);
    }
    sorted_root(&sorted_keys, &sorted_values)
}

/// Root of the trie over keys already sorted, distinct, with non-empty values.
fn sorted_root(keys: &[&[u8]], values: &[&[u8]]) -> [u8; 32] {
    if keys.is_empty() {
        return EMPTY_ROOT;
    }
    let mut builder = Builder {
        keys,
        values,
        pool: Vec::new(),
    };
    let mut buf = builder.take();
    let start = builder.node(&mut buf, 0, keys.len(), 0);
    keccak256(&buf[start..])
}

/// [`trie_root`] with each key replaced by its keccak-256 (the state and storage tries).
pub fn secure_trie_root(keys: &[&[u8]], values: &[&[u8]]) -> [u8; 32] {
    let hashed: Vec<[u8; 32]> = keys.iter().map(|k| keccak256(k)).collect();
    // Fixed 32-byte keys sort as four big-endian words, index last so equal keys keep their input order.
    let mut order: Vec<([u64; 4], u32)> = hashed
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut words = [0u64; 4];
            for (w, chunk) in words.iter_mut().zip(h.chunks_exact(8)) {
                let mut b = [0u8; 8];
                b.copy_from_slice(chunk);
                *w = u64::from_be_bytes(b);
            }
            (words, i as u32)
        })
        .collect();
    order.sort_unstable();
    let ids: Vec<u32> = order.iter().map(|o| o.1).collect();
    let refs: Vec<&[u8]> = hashed.iter().map(|h| h.as_slice()).collect();
    dedup_root(&refs, values, &ids)
}

/// Root of the transactions/receipts/withdrawals trie: `values[i]` under the key RLP(i).
pub fn ordered_trie_root(values: &[&[u8]]) -> [u8; 32] {
    let mut flat = Vec::with_capacity(values.len() * 3);
    let mut ends = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        rlp::push_uint(&mut flat, i as u64);
        ends.push(flat.len());
    }
    let mut keys: Vec<&[u8]> = Vec::with_capacity(values.len());
    let mut start = 0;
    for &end in &ends {
        keys.push(&flat[start..end]);
        start = end;
    }
    trie_root(&keys, values)
}

/// Slices `data` at `offsets` (already checked with [`crate::keccak::check_offsets`]).
pub fn unpack<'a>(data: &'a [u8], offsets: &[u32]) -> Vec<&'a [u8]> {
    offsets
        .windows(2)
        .map(|w| &data[w[0] as usize..w[1] as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn root_of(pairs: &[(&str, &str)]) -> String {
        let keys: Vec<&[u8]> = pairs.iter().map(|p| p.0.as_bytes()).collect();
        let values: Vec<&[u8]> = pairs.iter().map(|p| p.1.as_bytes()).collect();
        hex(&trie_root(&keys, &values))
    }

    fn secure_root_of(pairs: &[(&str, &str)]) -> String {
        let keys: Vec<&[u8]> = pairs.iter().map(|p| p.0.as_bytes()).collect();
        let values: Vec<&[u8]> = pairs.iter().map(|p| p.1.as_bytes()).collect();
        hex(&secure_trie_root(&keys, &values))
    }

    // Vectors from ethereum/tests TrieTests (trieanyorder.json, trieanyorder_secureTrie.json, trietest.json).
    #[test]
    fn empty() {
        assert_eq!(hex(&trie_root(&[], &[])), hex(&EMPTY_ROOT));
        assert_eq!(hex(&keccak256(&[0x80])), hex(&EMPTY_ROOT));
        assert_eq!(root_of(&[("a", "")]), hex(&EMPTY_ROOT));
    }

    #[test]
    fn single_item() {
        let v = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        assert_eq!(
            root_of(&[("A", v)]),
            "d23786fb4a010da3ce639d66d5e904a11dbc02746d1ce25029e53290cabf28ab"
        );
        assert_eq!(
            secure_root_of(&[("A", v)]),
            "e9e2935138352776cad724d31c9fa5266a5c593bb97726dd2a908fe6d53284df"
        );
    }

    #[test]
    fn dogs_any_order() {
        let want = "8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3";
        assert_eq!(
            root_of(&[
                ("doe", "reindeer"),
                ("dog", "puppy"),
                ("dogglesworth", "cat")
            ]),
            want
        );
        assert_eq!(
            root_of(&[
                ("dogglesworth", "cat"),
                ("doe", "reindeer"),
                ("dog", "puppy")
            ]),
            want
        );
        assert_eq!(
            secure_root_of(&[
                ("doe", "reindeer"),
                ("dog", "puppy"),
                ("dogglesworth", "cat")
            ]),
            "d4cd937e4a4368d7931a9cf51686b7e10abb3dce38a39000fd7902a092b64585"
        );
    }

    #[test]
    fn prefix_keys_and_deletes() {
        // "puppy": a key ending in the middle of others ("do" under "dog" under "doge").
        let want = "5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84";
        assert_eq!(
            root_of(&[
                ("do", "verb"),
                ("horse", "stallion"),
                ("doge", "coin"),
                ("dog", "puppy")
            ]),
            want
        );
        // trietest.json "emptyValues": later empty values delete, later entries win.
        assert_eq!(
            root_of(&[
                ("do", "verb"),
                ("ether", "wookiedoo"),
                ("horse", "stallion"),
                ("shaman", "horse"),
                ("doge", "coin"),
                ("ether", ""),
                ("dog", "puppy"),
                ("shaman", ""),
            ]),
            want
        );
        assert_eq!(
            root_of(&[
                ("do", "x"),
                ("horse", "stallion"),
                ("doge", "coin"),
                ("dog", "puppy"),
                ("do", "verb")
            ]),
            want
        );
    }

    #[test]
    fn foo_food() {
        assert_eq!(
            root_of(&[("foo", "bar"), ("food", "bass")]),
            "17beaa1648bafa633cda809c90c04af50fc8aed3cb40d16efbddee6fdf63c4c3"
        );
    }

    #[test]
    fn ordered() {
        assert_eq!(hex(&ordered_trie_root(&[])), hex(&EMPTY_ROOT));
        // Keys 0..200 cross the one-byte RLP boundary at 128; the same trie built by hand must match.
        let values: Vec<Vec<u8>> = (0..200u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let refs: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for i in 0..200u64 {
            let mut k = Vec::new();
            rlp::push_uint(&mut k, i);
            keys.push(k);
        }
        assert_eq!(keys[0], [0x80]);
        assert_eq!(keys[127], [0x7f]);
        assert_eq!(keys[128], [0x81, 0x80]);
        // Reversed input order gives the same root.
        let key_refs: Vec<&[u8]> = keys.iter().rev().map(|k| k.as_slice()).collect();
        let value_refs: Vec<&[u8]> = refs.iter().rev().copied().collect();
        assert_eq!(
            hex(&ordered_trie_root(&refs)),
            hex(&trie_root(&key_refs, &value_refs))
        );
    }

    #[test]
    fn compact_encoding() {
        let key = [0x12u8, 0x34, 0x5f];
        let mut out = Vec::new();
        push_compact(&mut out, &key, 0, 6, true);
        assert_eq!(out, [0x84, 0x20, 0x12, 0x34, 0x5f]);
        out.clear();
        push_compact(&mut out, &key, 1, 6, false);
        assert_eq!(out, [0x83, 0x12, 0x34, 0x5f]);
        out.clear();
        push_compact(&mut out, &key, 6, 6, true);
        assert_eq!(out, [0x20]);
        out.clear();
        push_compact(&mut out, &key, 5, 6, true);
        assert_eq!(out, [0x3f]);
    }

    #[test]
    fn unpack_slices() {
        let data = b"abcdef";
        assert_eq!(unpack(data, &[0, 2, 2, 6]), [&b"ab"[..], b"", b"cdef"]);
        assert!(unpack(data, &[]).is_empty());
    }
}
