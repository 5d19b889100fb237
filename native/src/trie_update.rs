//! Incremental Merkle-Patricia trie updates over a node store keyed by hash: the native twin of
//! src/main/exec/state/trie/merkleTrie.ts (`applyUpdatesMany`), producing the same roots and the same new nodes in
//! the same order, byte for byte.
//!
//! An update loads only the nodes on the touched paths (and the sibling a deletion folds into its parent) through a
//! [`NodeSource`], rebuilds those paths as dirty nodes in an arena, then encodes and hashes every dirty node once,
//! level by level from the deepest (height above the leaves), across all the jobs of the call. Dirty nodes under
//! 32 bytes are embedded in their parent and not returned; a root is hashed and returned whatever its length.
//!
//! Nothing here panics on bad input: malformed node RLP from the store is an [`UpdateError::BadNode`], an absent
//! node an [`UpdateError::MissingNode`], and recursion is bounded ([`MAX_KEY_LEN`], [`MAX_DEPTH`]).

use std::borrow::Cow;
use std::ops::Range;

use crate::keccak::keccak256;
use crate::rlp::{self, EMPTY_STRING, MAX_HEADER, STRING};
use crate::trie::EMPTY_ROOT;

/// Longest key accepted (the JS caller falls back to its own implementation beyond it).
pub const MAX_KEY_LEN: usize = 128;
/// Deepest nesting of nodes an update walks (two per nibble of the longest key, plus slack); a store whose paths
/// go deeper is malformed.
pub const MAX_DEPTH: usize = 4 * MAX_KEY_LEN + 16;

/// Why an update failed.
#[derive(Debug, PartialEq, Eq)]
pub enum UpdateError {
    /// The store lacks the node with this hash.
    MissingNode([u8; 32]),
    /// A node from the store (or embedded in one) is not a well-formed trie node.
    BadNode(String),
    /// The node source failed on its own terms (a JS exception is pending); nothing more to say.
    Source,
    /// The node source lost the buffer it passes hashes in.
    ScratchGone,
}

/// Where nodes come from: `with_node(hash, f)` calls `f` with the node's RLP, or None when the store lacks it.
pub trait NodeSource {
    fn with_node<R>(
        &mut self,
        hash: &[u8; 32],
        f: impl FnOnce(Option<&[u8]>) -> R,
    ) -> Result<R, UpdateError>;
}

/// One trie to update: its old root and its updates as (key, value) pairs; an empty value deletes.
pub struct Job<'a> {
    pub root: [u8; 32],
    pub updates: Vec<(&'a [u8], &'a [u8])>,
}

/// The result: new roots in job order, and the new nodes (hash, RLP) in the order the JS twin lists them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UpdateOutput {
    pub roots: Vec<[u8; 32]>,
    pub hashes: Vec<[u8; 32]>,
    /// Length of each new node's RLP.
    pub lengths: Vec<u32>,
    /// Where each new node's RLP starts: in `built` (true) or `rlp` (see [`UpdateOutput::node_rlp`]). The nodes of
    /// tries built from empty stay where they were encoded instead of being copied once more into one buffer.
    starts: Vec<(bool, usize)>,
    rlp: Vec<u8>,
    built: Vec<u8>,
}

impl UpdateOutput {
    /// The RLP of new node `i`.
    pub fn node_rlp(&self, i: usize) -> &[u8] {
        let (built, at) = self.starts[i];
        let len = self.lengths[i] as usize;
        if built {
            &self.built[at..at + len]
        } else {
            &self.rlp[at..at + len]
        }
    }

    /// Total length of the new nodes' RLP.
    pub fn rlp_len(&self) -> usize {
        self.lengths.iter().map(|&l| l as usize).sum()
    }
}

#[derive(Clone, Debug)]
enum Ref {
    /// A clean node stored under its hash.
    Hash([u8; 32]),
    /// A clean node under 32 bytes embedded in its parent: its RLP.
    Embedded(Vec<u8>),
    /// A dirty node: its index in the arena.
    Node(usize),
}

/// Bytes a dirty node holds: borrowed from the call's input (update values, key nibbles) where it can, so building
/// a large trie does not copy every value and path once more; owned when read from the store or newly combined.
type Bytes<'a> = Cow<'a, [u8]>;

#[derive(Clone, Debug)]
enum Node<'a> {
    Leaf {
        path: Bytes<'a>,
        value: Bytes<'a>,
    },
    Ext {
        path: Bytes<'a>,
        child: Ref,
    },
    Branch {
        children: Box<[Option<Ref>; 16]>,
        value: Option<Bytes<'a>>,
    },
}

/// `b[from..]`, borrowing when `b` borrows.
fn tail<'a>(b: &Bytes<'a>, from: usize) -> Bytes<'a> {
    match b {
        Cow::Borrowed(s) => Cow::Borrowed(s.get(from..).unwrap_or(&[])),
        Cow::Owned(v) => Cow::Owned(v.get(from..).unwrap_or(&[]).to_vec()),
    }
}

/// `b[from..to]`, borrowing when `b` borrows.
fn range<'a>(b: &Bytes<'a>, from: usize, to: usize) -> Bytes<'a> {
    match b {
        Cow::Borrowed(s) => Cow::Borrowed(s.get(from..to).unwrap_or(&[])),
        Cow::Owned(v) => Cow::Owned(v.get(from..to).unwrap_or(&[]).to_vec()),
    }
}

/// A key (as nibbles) and its value, sorted and distinct, for building a subtree.
type Entry<'a> = (Bytes<'a>, Bytes<'a>);

/// What an update did to a subtree: nothing, or replaced it (None: it is gone).
enum Out {
    Same,
    New(Option<Ref>),
}

#[derive(Clone, Copy)]
struct Op<'a> {
    nib: &'a [u8],
    value: Option<&'a [u8]>,
}

fn bad(why: &str) -> UpdateError {
    UpdateError::BadNode(format!("malformed trie node: {why}"))
}

// --- RLP reading, as strict as node.ts's decodeNode and no stricter.

struct Item {
    list: bool,
    /// Where the item begins (header included), and its payload [start, end).
    from: usize,
    start: usize,
    end: usize,
}

fn read_item(buf: &[u8], at: usize, limit: usize) -> Result<Item, UpdateError> {
    if at >= limit {
        return Err(bad("truncated"));
    }
    let b = buf[at];
    if b < 0x80 {
        return Ok(Item {
            list: false,
            from: at,
            start: at,
            end: at + 1,
        });
    }
    let list = b >= 0xc0;
    let short = if list { b - 0x40 } else { b };
    let (start, len) = if short < 0xb8 {
        (at + 1, (short - 0x80) as usize)
    } else {
        let start = at + 1 + (short - 0xb7) as usize;
        if start > limit {
            return Err(bad("truncated length"));
        }
        let mut len = 0usize;
        for &d in &buf[at + 1..start] {
            len = len
                .checked_mul(256)
                .and_then(|l| l.checked_add(d as usize))
                .ok_or_else(|| bad("item runs past its parent"))?;
        }
        (start, len)
    };
    let end = start
        .checked_add(len)
        .filter(|&e| e <= limit)
        .ok_or_else(|| bad("item runs past its parent"))?;
    Ok(Item {
        list,
        from: at,
        start,
        end,
    })
}

fn item_string<'b>(rlp: &'b [u8], it: &Item) -> Result<&'b [u8], UpdateError> {
    if it.list {
        return Err(bad("expected a string, found a list"));
    }
    Ok(&rlp[it.start..it.end])
}

fn item_child(rlp: &[u8], it: &Item) -> Result<Option<Ref>, UpdateError> {
    if it.list {
        return Ok(Some(Ref::Embedded(rlp[it.from..it.end].to_vec())));
    }
    match it.end - it.start {
        0 => Ok(None),
        32 => {
            let mut h = [0u8; 32];
            h.copy_from_slice(&rlp[it.start..it.end]);
            Ok(Some(Ref::Hash(h)))
        }
        len => Err(UpdateError::BadNode(format!(
            "malformed trie node: child reference of {len} bytes"
        ))),
    }
}

fn open_list(rlp: &[u8]) -> Result<(usize, usize), UpdateError> {
    let it = read_item(rlp, 0, rlp.len())?;
    if !it.list || it.end != rlp.len() {
        return Err(bad("not a single RLP list"));
    }
    Ok((it.start, it.end))
}

fn decode_path(compact: &[u8]) -> Result<(Vec<u8>, bool), UpdateError> {
    let Some(&first) = compact.first() else {
        return Err(bad("empty path"));
    };
    let flag = first >> 4;
    if flag > 3 {
        return Err(UpdateError::BadNode(format!(
            "malformed trie node: path flag {flag}"
        )));
    }
    let odd = flag & 1 == 1;
    let mut path = Vec::with_capacity((compact.len() - 1) * 2 + odd as usize);
    if odd {
        path.push(first & 0x0f);
    }
    for &b in &compact[1..] {
        path.push(b >> 4);
        path.push(b & 0x0f);
    }
    Ok((path, flag >= 2))
}

fn decode_node(rlp: &[u8]) -> Result<Node<'static>, UpdateError> {
    let (start, end) = open_list(rlp)?;
    let a = read_item(rlp, start, end)?;
    let b = read_item(rlp, a.end, end)?;
    if b.end == end {
        if a.list {
            return Err(bad("path is a list"));
        }
        let (path, leaf) = decode_path(&rlp[a.start..a.end])?;
        if leaf {
            let value = item_string(rlp, &b)?.to_vec();
            return Ok(Node::Leaf {
                path: Cow::Owned(path),
                value: Cow::Owned(value),
            });
        }
        let Some(child) = item_child(rlp, &b)? else {
            return Err(bad("extension without a child"));
        };
        return Ok(Node::Ext {
            path: Cow::Owned(path),
            child,
        });
    }
    let mut children: Box<[Option<Ref>; 16]> = Box::default();
    let mut at = start;
    for slot in children.iter_mut() {
        let it = read_item(rlp, at, end)?;
        *slot = item_child(rlp, &it)?;
        at = it.end;
    }
    let it = read_item(rlp, at, end)?;
    if it.end != end {
        return Err(bad("list of more than 17 items"));
    }
    let value = item_string(rlp, &it)?;
    Ok(Node::Branch {
        children,
        value: (!value.is_empty()).then(|| Cow::Owned(value.to_vec())),
    })
}

// --- RLP writing.

fn push_compact(out: &mut Vec<u8>, path: &[u8], leaf: bool) {
    let odd = path.len() & 1;
    let bytes = path.len() / 2 + 1;
    if bytes > 1 {
        rlp::push_header(out, bytes, STRING);
    }
    let mut i = 0;
    let flag = ((if leaf { 2u8 } else { 0 }) | odd as u8) << 4;
    if odd == 1 {
        out.push(flag | path[0]);
        i = 1;
    } else {
        out.push(flag);
    }
    while i + 1 < path.len() {
        out.push((path[i] << 4) | (path[i + 1] & 0x0f));
        i += 2;
    }
}

fn concat(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(a.len() + b.len());
    v.extend_from_slice(a);
    v.extend_from_slice(b);
    v
}

fn match_length(nib: &[u8], pos: usize, path: &[u8]) -> usize {
    let rest = nib.get(pos..).unwrap_or(&[]);
    rest.iter().zip(path).take_while(|(a, b)| a == b).count()
}

/// The runs of `items` (sorted by key; each key longer than `pos` nibbles) whose keys share the nibble at `pos`:
/// that nibble and the run's range in `items`, in order. A key that ends at `pos` means the keys were not sorted
/// (a key ending there sorts first and is the caller's to take off before). Shared by the update of a branch and
/// both builders of new subtrees.
fn nibble_runs<'x, T>(
    items: &'x [T],
    pos: usize,
    key: impl Fn(&T) -> &[u8] + 'x,
) -> impl Iterator<Item = Result<(usize, Range<usize>), UpdateError>> + 'x {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= items.len() {
            return None;
        }
        let Some(&n) = key(&items[i]).get(pos) else {
            i = items.len();
            return Some(Err(bad("keys out of order")));
        };
        let mut j = i + 1;
        while j < items.len() && key(&items[j]).get(pos) == Some(&n) {
            j += 1;
        }
        let run = i..j;
        i = j;
        Some(Ok((n as usize & 15, run)))
    })
}

struct Updater<'s, 'a, S: NodeSource> {
    source: &'s mut S,
    arena: Vec<Node<'a>>,
    depth: usize,
}

impl<'a, S: NodeSource> Updater<'_, 'a, S> {
    fn push(&mut self, node: Node<'a>) -> Ref {
        self.arena.push(node);
        Ref::Node(self.arena.len() - 1)
    }

    fn resolve(&mut self, r: &Ref) -> Result<Node<'a>, UpdateError> {
        match r {
            Ref::Hash(h) => match self.source.with_node(h, |rlp| rlp.map(decode_node))? {
                Some(node) => node,
                None => Err(UpdateError::MissingNode(*h)),
            },
            Ref::Embedded(rlp) => decode_node(rlp),
            Ref::Node(i) => Ok(self.arena[*i].clone()),
        }
    }

    fn update(&mut self, r: Option<&Ref>, pos: usize, ops: &[Op<'a>]) -> Result<Out, UpdateError> {
        let Some(r) = r else {
            let entries: Vec<Entry<'a>> = ops
                .iter()
                .filter_map(|op| op.value.map(|v| (Cow::Borrowed(op.nib), Cow::Borrowed(v))))
                .collect();
            if entries.is_empty() {
                return Ok(Out::Same);
            }
            let node = self.build(&entries, pos)?;
            return Ok(Out::New(Some(node)));
        };
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad("paths deeper than any key"));
        }
        let out = match self.resolve(r)? {
            Node::Leaf { path, value } => self.update_leaf(&path, value, pos, ops),
            Node::Ext { path, child } => self.update_ext(&path, &child, pos, ops),
            Node::Branch { children, value } => self.update_branch(children, value, pos, ops),
        };
        self.depth -= 1;
        out
    }

    fn update_leaf(
        &mut self,
        path: &[u8],
        leaf_value: Bytes<'a>,
        pos: usize,
        ops: &[Op<'a>],
    ) -> Result<Out, UpdateError> {
        let mut matched: Option<usize> = None;
        let mut sets = 0usize;
        for (i, op) in ops.iter().enumerate() {
            if matched.is_none()
                && op.nib.len().checked_sub(pos) == Some(path.len())
                && match_length(op.nib, pos, path) == path.len()
            {
                matched = Some(i);
            } else if op.value.is_some() {
                sets += 1;
            }
        }
        if sets == 0 {
            let Some(m) = matched else {
                return Ok(Out::Same);
            };
            return Ok(match ops[m].value {
                None => Out::New(None),
                Some(v) if v == &*leaf_value => Out::Same,
                // The matching key ends in exactly this path: borrow it from the input.
                Some(v) => Out::New(Some(self.push(Node::Leaf {
                    path: Cow::Borrowed(ops[m].nib.get(pos..).unwrap_or(&[])),
                    value: Cow::Borrowed(v),
                }))),
            });
        }
        let leaf_nib = concat(ops[0].nib.get(..pos).unwrap_or(&[]), path);
        let mut entries: Vec<Entry<'a>> = Vec::with_capacity(ops.len() + 1);
        let mut leaf = matched.is_none().then_some((leaf_nib, leaf_value));
        for op in ops {
            if leaf
                .as_ref()
                .is_some_and(|(nib, _)| nib.as_slice() < op.nib)
                && let Some((nib, value)) = leaf.take()
            {
                entries.push((Cow::Owned(nib), value));
            }
            if let Some(v) = op.value {
                entries.push((Cow::Borrowed(op.nib), Cow::Borrowed(v)));
            }
        }
        if let Some((nib, value)) = leaf {
            entries.push((Cow::Owned(nib), value));
        }
        let node = self.build(&entries, pos)?;
        Ok(Out::New(Some(node)))
    }

    fn update_ext(
        &mut self,
        path: &[u8],
        child: &Ref,
        pos: usize,
        ops: &[Op<'a>],
    ) -> Result<Out, UpdateError> {
        let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
            return Ok(Out::Same);
        };
        let m = match_length(first.nib, pos, path).min(match_length(last.nib, pos, path));
        if m == path.len() {
            return self.update_below_ext(path, child, pos, ops);
        }
        if ops.iter().all(|op| op.value.is_none()) {
            let mut a = 0;
            while a < ops.len() && match_length(ops[a].nib, pos, path) < path.len() {
                a += 1;
            }
            let mut b = a;
            while b < ops.len() && match_length(ops[b].nib, pos, path) == path.len() {
                b += 1;
            }
            return if a == b {
                Ok(Out::Same)
            } else {
                self.update_below_ext(path, child, pos, &ops[a..b])
            };
        }
        let mut children: Box<[Option<Ref>; 16]> = Box::default();
        let below_child = if path.len() - m - 1 > 0 {
            self.push(Node::Ext {
                path: Cow::Owned(path[m + 1..].to_vec()),
                child: child.clone(),
            })
        } else {
            child.clone()
        };
        children[path[m] as usize & 15] = Some(below_child);
        match self.update_branch(children, None, pos + m, ops)? {
            Out::Same => Ok(Out::Same),
            Out::New(below) if m > 0 => Ok(Out::New(self.extend(&path[..m], below)?)),
            Out::New(below) => Ok(Out::New(below)),
        }
    }

    fn update_below_ext(
        &mut self,
        path: &[u8],
        child: &Ref,
        pos: usize,
        ops: &[Op<'a>],
    ) -> Result<Out, UpdateError> {
        match self.update(Some(child), pos + path.len(), ops)? {
            Out::Same => Ok(Out::Same),
            Out::New(c) => Ok(Out::New(self.extend(path, c)?)),
        }
    }

    fn update_branch(
        &mut self,
        mut children: Box<[Option<Ref>; 16]>,
        mut value: Option<Bytes<'a>>,
        pos: usize,
        ops: &[Op<'a>],
    ) -> Result<Out, UpdateError> {
        let mut changed = false;
        let mut i = 0;
        if let Some(own) = ops.first().filter(|op| op.nib.len() == pos) {
            let differs = match (own.value, value.as_deref()) {
                (None, v) => v.is_some(),
                (Some(_), None) => true,
                (Some(a), Some(b)) => a != b,
            };
            if differs {
                value = own.value.map(Cow::Borrowed);
                changed = true;
            }
            i = 1;
        }
        let rest = &ops[i..];
        for run in nibble_runs(rest, pos, |op: &Op<'a>| op.nib) {
            let (slot, range) = run?;
            if let Out::New(next) = self.update(children[slot].as_ref(), pos + 1, &rest[range])? {
                children[slot] = next;
                changed = true;
            }
        }
        if !changed {
            return Ok(Out::Same);
        }
        let mut count = 0;
        let mut only = 0;
        for (k, c) in children.iter().enumerate() {
            if c.is_some() {
                count += 1;
                only = k;
            }
        }
        if count == 0 {
            return Ok(Out::New(value.map(|value| {
                self.push(Node::Leaf {
                    path: Cow::Borrowed(&[]),
                    value,
                })
            })));
        }
        if count == 1 && value.is_none() {
            let child = children[only].take();
            return Ok(Out::New(self.extend(&[only as u8], child)?));
        }
        Ok(Out::New(Some(self.push(Node::Branch { children, value }))))
    }

    /// The node for `path` followed by `child`, merging paths when the child is a leaf or an extension.
    fn extend(&mut self, path: &[u8], child: Option<Ref>) -> Result<Option<Ref>, UpdateError> {
        let Some(child) = child else {
            return Ok(None);
        };
        let node = match self.resolve(&child)? {
            Node::Leaf { path: p, value } => Node::Leaf {
                path: Cow::Owned(concat(path, &p)),
                value,
            },
            Node::Ext { path: p, child: c } => Node::Ext {
                path: Cow::Owned(concat(path, &p)),
                child: c,
            },
            Node::Branch { .. } => Node::Ext {
                path: Cow::Owned(path.to_vec()),
                child,
            },
        };
        Ok(Some(self.push(node)))
    }

    /// A new subtree holding `entries` (sorted, distinct keys sharing their first `pos` nibbles).
    fn build(&mut self, entries: &[Entry<'a>], pos: usize) -> Result<Ref, UpdateError> {
        let first = &entries[0].0;
        if entries.len() == 1 {
            let (nib, value) = &entries[0];
            return Ok(self.push(Node::Leaf {
                path: tail(nib, pos),
                value: value.clone(),
            }));
        }
        let last = &entries[entries.len() - 1].0;
        let end = first.len().min(last.len());
        let mut d = pos;
        while d < end && first[d] == last[d] {
            d += 1;
        }
        if d > pos {
            let child = self.build_branch(entries, d)?;
            return Ok(self.push(Node::Ext {
                path: range(first, pos, d),
                child,
            }));
        }
        self.build_branch(entries, pos)
    }

    fn build_branch(&mut self, entries: &[Entry<'a>], pos: usize) -> Result<Ref, UpdateError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad("paths deeper than any key"));
        }
        let mut children: Box<[Option<Ref>; 16]> = Box::default();
        let mut value = None;
        let mut i = 0;
        if entries[0].0.len() == pos {
            value = Some(entries[0].1.clone());
            i = 1;
        }
        let rest = &entries[i..];
        for run in nibble_runs(rest, pos, |e: &Entry<'a>| &e.0) {
            let (slot, range) = run?;
            children[slot] = Some(self.build(&rest[range], pos + 1)?);
        }
        self.depth -= 1;
        Ok(self.push(Node::Branch { children, value }))
    }
}

/// A prepared update: its key's nibbles [from, to) in [`Prepared::nibbles`], and its value's bytes [from, to) in
/// [`Prepared::values`] (None for a delete).
type PreparedOp = (usize, usize, Option<(usize, usize)>);

/// A job's updates in key order, the later of equal keys kept, empty values turned into deletes.
struct Prepared {
    /// The kept keys as nibbles, back to back in key order.
    nibbles: Vec<u8>,
    /// The kept values, back to back in key order. Copied out of the input, which is in the caller's order: the
    /// trie is built in key order, and reading each value where the caller left it missed the cache once per key
    /// (a quarter of the time of a 100k-key build); this copy reads them in a tight loop whose misses overlap.
    values: Vec<u8>,
    ops: Vec<PreparedOp>,
}

impl Prepared {
    fn nib(&self, op: &PreparedOp) -> &[u8] {
        &self.nibbles[op.0..op.1]
    }

    fn value(&self, op: &PreparedOp) -> Option<&[u8]> {
        op.2.map(|(a, b)| &self.values[a..b])
    }
}

fn prepare(updates: &[(&[u8], &[u8])]) -> Prepared {
    // Sorted on the keys' first 8 bytes (big-endian, so the order of the bytes), then the whole keys, then the
    // input index: equal keys keep their input order, and the last of them wins. Hashed keys nearly always differ
    // in those 8 bytes, so the sort compares integers instead of calling memcmp.
    let mut order: Vec<(u64, usize)> = updates
        .iter()
        .enumerate()
        .map(|(i, (key, _))| {
            let mut head = [0u8; 8];
            let n = key.len().min(8);
            head[..n].copy_from_slice(&key[..n]);
            (u64::from_be_bytes(head), i)
        })
        .collect();
    order.sort_unstable_by(|&(ha, a), &(hb, b)| {
        ha.cmp(&hb)
            .then_with(|| updates[a].0.cmp(updates[b].0))
            .then(a.cmp(&b))
    });
    let mut nibbles = Vec::with_capacity(2 * updates.iter().map(|(k, _)| k.len()).sum::<usize>());
    let mut values = Vec::with_capacity(updates.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut ops = Vec::with_capacity(order.len());
    for (k, &(head, i)) in order.iter().enumerate() {
        let (key, value) = updates[i];
        // Equal keys have equal heads: the whole keys are compared only when the heads are (hardly ever for hashes).
        if let Some(&(next_head, next)) = order.get(k + 1)
            && next_head == head
            && updates[next].0 == key
        {
            continue;
        }
        let at = nibbles.len();
        nibbles.resize(at + 2 * key.len(), 0);
        for (pair, &b) in nibbles[at..].chunks_exact_mut(2).zip(key) {
            pair[0] = b >> 4;
            pair[1] = b & 0x0f;
        }
        let value = (!value.is_empty()).then(|| {
            let from = values.len();
            values.extend_from_slice(value);
            (from, values.len())
        });
        ops.push((at, nibbles.len(), value));
    }
    Prepared {
        nibbles,
        values,
        ops,
    }
}

/// How a parent refers to a dirty node once hashed: its RLP (under 32 bytes) or RLP of its hash.
/// How a parent refers to a hashed dirty node: RLP of its hash (33 bytes) or its own RLP (under 32), inline.
#[derive(Clone, Copy)]
struct RefBytes {
    len: u8,
    bytes: [u8; 33],
}

impl RefBytes {
    const NONE: RefBytes = RefBytes {
        len: 0,
        bytes: [0; 33],
    };

    fn of(src: &[u8]) -> RefBytes {
        let mut r = RefBytes::NONE;
        let n = src.len().min(33);
        r.bytes[..n].copy_from_slice(&src[..n]);
        r.len = n as u8;
        r
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

fn push_ref(out: &mut Vec<u8>, r: Option<&Ref>, refs: &[RefBytes]) {
    match r {
        None => out.push(EMPTY_STRING),
        Some(Ref::Hash(h)) => {
            out.push(STRING + 32);
            out.extend_from_slice(h);
        }
        Some(Ref::Embedded(rlp)) => out.extend_from_slice(rlp),
        Some(Ref::Node(i)) => out.extend_from_slice(refs[*i].as_slice()),
    }
}

fn encode(node: &Node<'_>, refs: &[RefBytes], buf: &mut Vec<u8>) -> usize {
    buf.clear();
    buf.resize(MAX_HEADER, 0);
    match node {
        Node::Leaf { path, value } => {
            push_compact(buf, path, true);
            rlp::push_string(buf, value);
        }
        Node::Ext { path, child } => {
            push_compact(buf, path, false);
            push_ref(buf, Some(child), refs);
        }
        Node::Branch { children, value } => {
            for c in children.iter() {
                push_ref(buf, c.as_ref(), refs);
            }
            match value {
                None => buf.push(EMPTY_STRING),
                Some(v) => rlp::push_string(buf, v),
            }
        }
    }
    rlp::finish_list(buf)
}

/// A node encoded and hashed as soon as it was built (see [`Builder`]).
#[derive(Clone, Copy)]
struct Sealed {
    /// Its RLP: `Builder::rlp[at..at + len]`.
    at: usize,
    len: usize,
    hash: [u8; 32],
    height: usize,
}

/// Builds the trie of a job whose old root is empty straight from its sorted entries, encoding and hashing each
/// node as soon as its children are done (children come first), so no node is kept as a structure at all. Builds
/// the same nodes as [`Updater::build`], in the same post-order and with the same heights, so the output order of
/// [`apply_updates_many`] does not depend on which of the two built a subtree.
#[derive(Default)]
struct Builder {
    /// RLP of the hashed nodes, back to back, in post-order.
    rlp: Vec<u8>,
    /// The hashed nodes, in post-order.
    sealed: Vec<Sealed>,
    buf: Vec<u8>,
}

impl Builder {
    fn start(&mut self) {
        self.buf.clear();
        self.buf.resize(MAX_HEADER, 0);
    }

    /// Finishes the node in `buf`: its hash reference when it encodes to 32 bytes or more (or `forced`: a root),
    /// otherwise its RLP, which the parent embeds.
    fn seal(&mut self, height: usize, forced: bool) -> RefBytes {
        let start = rlp::finish_list(&mut self.buf);
        let enc = &self.buf[start..];
        if enc.len() < 32 && !forced {
            return RefBytes::of(enc);
        }
        let hash = keccak256(enc);
        let at = self.rlp.len();
        self.rlp.extend_from_slice(enc);
        self.sealed.push(Sealed {
            at,
            len: enc.len(),
            hash,
            height,
        });
        let mut r = RefBytes::NONE;
        r.bytes[0] = STRING + 32;
        r.bytes[1..].copy_from_slice(&hash);
        r.len = 33;
        r
    }

    /// The root of a job's entries (sorted, distinct keys as nibbles; at least one): hashed whatever its length.
    fn root(&mut self, entries: &[(&[u8], &[u8])]) -> Result<[u8; 32], UpdateError> {
        let (top, _) = self.build(entries, 0, 0, true)?;
        let mut h = [0u8; 32];
        h.copy_from_slice(&top.bytes[1..33]);
        Ok(h)
    }

    /// The subtree of `entries` (sharing their first `pos` nibbles), as [`Updater::build`] makes it; `top`: it is
    /// the root, hashed whatever its length.
    fn build(
        &mut self,
        entries: &[(&[u8], &[u8])],
        pos: usize,
        depth: usize,
        top: bool,
    ) -> Result<(RefBytes, usize), UpdateError> {
        let (first, value) = entries[0];
        if entries.len() == 1 {
            self.start();
            push_compact(&mut self.buf, first.get(pos..).unwrap_or(&[]), true);
            rlp::push_string(&mut self.buf, value);
            return Ok((self.seal(0, top), 0));
        }
        let last = entries[entries.len() - 1].0;
        let end = first.len().min(last.len());
        let mut d = pos;
        while d < end && first[d] == last[d] {
            d += 1;
        }
        if d > pos {
            let (child, h) = self.build_branch(entries, d, depth, false)?;
            self.start();
            push_compact(&mut self.buf, &first[pos..d], false);
            self.buf.extend_from_slice(child.as_slice());
            return Ok((self.seal(h + 1, top), h + 1));
        }
        self.build_branch(entries, pos, depth, top)
    }

    fn build_branch(
        &mut self,
        entries: &[(&[u8], &[u8])],
        pos: usize,
        depth: usize,
        top: bool,
    ) -> Result<(RefBytes, usize), UpdateError> {
        if depth > MAX_DEPTH {
            return Err(bad("paths deeper than any key"));
        }
        let mut children = [RefBytes::NONE; 16];
        let mut value: Option<&[u8]> = None;
        let mut height = 0;
        let mut i = 0;
        if entries[0].0.len() == pos {
            value = Some(entries[0].1);
            i = 1;
        }
        let rest = &entries[i..];
        for run in nibble_runs(rest, pos, |e: &(&[u8], &[u8])| e.0) {
            let (slot, range) = run?;
            let (child, h) = self.build(&rest[range], pos + 1, depth + 1, false)?;
            children[slot] = child;
            height = height.max(h + 1);
        }
        self.start();
        for c in &children {
            if c.len == 0 {
                self.buf.push(EMPTY_STRING);
            } else {
                self.buf.extend_from_slice(c.as_slice());
            }
        }
        match value {
            None => self.buf.push(EMPTY_STRING),
            Some(v) => rlp::push_string(&mut self.buf, v),
        }
        Ok((self.seal(height, top), height))
    }
}

/// A dirty node waiting for its level: a node of the update arena, or one the [`Builder`] already sealed.
#[derive(Clone, Copy)]
enum Pending {
    Arena(usize),
    Sealed(usize),
}

/// Height of each dirty node above the dirty leaves, pushed to `levels` in post-order (children first, in order).
fn height(arena: &[Node<'_>], i: usize, levels: &mut Vec<Vec<Pending>>) -> usize {
    let mut h = 0;
    match &arena[i] {
        Node::Leaf { .. } => {}
        Node::Ext { child, .. } => {
            if let Ref::Node(c) = child {
                h = height(arena, *c, levels) + 1;
            }
        }
        Node::Branch { children, .. } => {
            for c in children.iter() {
                if let Some(Ref::Node(c)) = c {
                    h = h.max(height(arena, *c, levels) + 1);
                }
            }
        }
    }
    push_level(levels, h, Pending::Arena(i));
    h
}

fn push_level(levels: &mut Vec<Vec<Pending>>, h: usize, p: Pending) {
    if levels.len() <= h {
        levels.resize_with(h + 1, Vec::new);
    }
    levels[h].push(p);
}

/// How a job ends: its new root (unchanged, empty, or built by the [`Builder`] as its sealed nodes [from, to)), or
/// the top of its rebuilt paths in the update arena.
enum Top {
    Done {
        root: [u8; 32],
        sealed: (usize, usize),
    },
    Updated(Option<Ref>),
}

/// Applies each job's updates to its trie and hashes all the new nodes together.
pub fn apply_updates_many<S: NodeSource>(
    jobs: &[Job],
    source: &mut S,
) -> Result<UpdateOutput, UpdateError> {
    // Every job's keys as nibbles first: the dirty nodes borrow their paths and values from them and the input.
    let prepared: Vec<Prepared> = jobs.iter().map(|job| prepare(&job.updates)).collect();
    // A job into an empty trie is built and hashed at once by the Builder; the others go through the arena.
    let updates: usize = jobs
        .iter()
        .filter(|job| job.root != EMPTY_ROOT)
        .map(|job| job.updates.len())
        .sum();
    let mut up = Updater {
        source,
        arena: Vec::with_capacity(2 * updates + 16),
        depth: 0,
    };
    let mut builder = Builder::default();
    let mut tops: Vec<Top> = Vec::with_capacity(jobs.len());
    for (job, prep) in jobs.iter().zip(&prepared) {
        if job.root == EMPTY_ROOT {
            let entries: Vec<(&[u8], &[u8])> = prep
                .ops
                .iter()
                .filter_map(|op| prep.value(op).map(|v| (prep.nib(op), v)))
                .collect();
            let from = builder.sealed.len();
            let root = if entries.is_empty() {
                EMPTY_ROOT
            } else {
                // Room for every leaf and more than the branches above them need: growing a buffer this size
                // would copy it over and over; pages never written cost nothing.
                let values: usize = entries.iter().map(|(_, v)| v.len()).sum();
                builder.rlp.reserve(values + 256 * entries.len());
                builder.sealed.reserve(2 * entries.len());
                builder.root(&entries)?
            };
            tops.push(Top::Done {
                root,
                sealed: (from, builder.sealed.len()),
            });
            continue;
        }
        let start = Some(Ref::Hash(job.root));
        let ops: Vec<Op> = prep
            .ops
            .iter()
            .map(|op| Op {
                nib: prep.nib(op),
                value: prep.value(op),
            })
            .collect();
        let top = if ops.is_empty() {
            start
        } else {
            up.depth = 0;
            match up.update(start.as_ref(), 0, &ops)? {
                Out::Same => start,
                Out::New(r) => r,
            }
        };
        tops.push(Top::Updated(top));
    }

    // Every new node by its height above the leaves; within a height, job by job, each job's in post-order.
    let mut arena = up.arena;
    let mut levels: Vec<Vec<Pending>> = Vec::new();
    let mut forced = vec![false; arena.len()];
    let mut top_nodes: Vec<Option<usize>> = Vec::with_capacity(tops.len());
    for top in &tops {
        let i = match top {
            Top::Done {
                sealed: (from, to), ..
            } => {
                for k in *from..*to {
                    push_level(&mut levels, builder.sealed[k].height, Pending::Sealed(k));
                }
                None
            }
            Top::Updated(None | Some(Ref::Hash(_))) => None,
            Top::Updated(Some(Ref::Embedded(rlp))) => {
                arena.push(decode_node(rlp)?);
                forced.push(true);
                Some(arena.len() - 1)
            }
            Top::Updated(Some(Ref::Node(i))) => {
                forced[*i] = true;
                Some(*i)
            }
        };
        if let Some(i) = i {
            height(&arena, i, &mut levels);
        }
        top_nodes.push(i);
    }

    let mut out = UpdateOutput::default();
    let count = arena.len() + builder.sealed.len();
    out.hashes.reserve(count);
    out.lengths.reserve(count);
    out.starts.reserve(count);
    out.rlp.reserve(arena.len() * 128);
    let mut refs: Vec<RefBytes> = vec![RefBytes::NONE; arena.len()];
    let mut buf = Vec::with_capacity(1024);
    for level in &levels {
        for &p in level {
            let i = match p {
                Pending::Sealed(k) => {
                    let s = &builder.sealed[k];
                    out.hashes.push(s.hash);
                    out.lengths.push(s.len as u32);
                    out.starts.push((true, s.at));
                    continue;
                }
                Pending::Arena(i) => i,
            };
            let start = encode(&arena[i], &refs, &mut buf);
            let enc = &buf[start..];
            if enc.len() >= 32 || forced[i] {
                let hash = keccak256(enc);
                let mut r = RefBytes::NONE;
                r.bytes[0] = STRING + 32;
                r.bytes[1..].copy_from_slice(&hash);
                r.len = 33;
                refs[i] = r;
                out.hashes.push(hash);
                out.lengths.push(enc.len() as u32);
                out.starts.push((false, out.rlp.len()));
                out.rlp.extend_from_slice(enc);
            } else {
                refs[i] = RefBytes::of(enc);
            }
        }
    }

    for (top, node) in tops.iter().zip(&top_nodes) {
        let root = match (top, node) {
            (Top::Done { root, .. }, _) => *root,
            (Top::Updated(None), _) => EMPTY_ROOT,
            (Top::Updated(Some(Ref::Hash(h))), _) => *h,
            (_, Some(i)) => {
                let mut h = [0u8; 32];
                h.copy_from_slice(&refs[*i].bytes[1..33]);
                h
            }
            _ => return Err(bad("unreachable root")),
        };
        out.roots.push(root);
    }
    out.built = builder.rlp;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trie::trie_root;
    use std::collections::HashMap;

    #[derive(Default)]
    struct Store {
        nodes: HashMap<[u8; 32], Vec<u8>>,
        reads: usize,
    }

    impl NodeSource for Store {
        fn with_node<R>(
            &mut self,
            hash: &[u8; 32],
            f: impl FnOnce(Option<&[u8]>) -> R,
        ) -> Result<R, UpdateError> {
            self.reads += 1;
            Ok(f(self.nodes.get(hash).map(Vec::as_slice)))
        }
    }

    impl Store {
        fn put_all(&mut self, out: &UpdateOutput) {
            let mut at = 0;
            for (i, (h, &len)) in out.hashes.iter().zip(&out.lengths).enumerate() {
                let rlp = out.node_rlp(i).to_vec();
                assert_eq!(keccak256(&rlp), *h);
                self.nodes.insert(*h, rlp);
                at += len as usize;
            }
            assert_eq!(at, out.rlp_len());
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn int(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    fn expected(model: &std::collections::BTreeMap<Vec<u8>, Vec<u8>>) -> [u8; 32] {
        let keys: Vec<&[u8]> = model.keys().map(Vec::as_slice).collect();
        let values: Vec<&[u8]> = model.values().map(Vec::as_slice).collect();
        trie_root(&keys, &values)
    }

    fn apply(store: &mut Store, root: [u8; 32], updates: &[(Vec<u8>, Vec<u8>)]) -> [u8; 32] {
        let job = Job {
            root,
            updates: updates
                .iter()
                .map(|(k, v)| (k.as_slice(), v.as_slice()))
                .collect(),
        };
        let out = apply_updates_many(&[job], store).expect("update");
        store.put_all(&out);
        out.roots[0]
    }

    #[test]
    fn fixture_words() {
        let entries: [(&str, &str); 8] = [
            ("do", "verb"),
            ("ether", "wookiedoo"),
            ("horse", "stallion"),
            ("shaman", "horse"),
            ("doge", "coin"),
            ("ether", ""),
            ("dog", "puppy"),
            ("shaman", ""),
        ];
        let want = "5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84";
        let mut store = Store::default();
        let mut root = EMPTY_ROOT;
        for (k, v) in entries {
            root = apply(
                &mut store,
                root,
                &[(k.as_bytes().to_vec(), v.as_bytes().to_vec())],
            );
        }
        let hex: String = root.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, want);
        let mut store = Store::default();
        let all: Vec<(Vec<u8>, Vec<u8>)> = entries
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        assert_eq!(apply(&mut store, EMPTY_ROOT, &all), root);
    }

    #[test]
    fn random_batches_match_whole_set_roots() {
        for seed in 1..=6u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut store = Store::default();
            let mut model = std::collections::BTreeMap::new();
            let mut root = EMPTY_ROOT;
            // Short keys share long prefixes; short values make embedded nodes.
            let prefix = rng.bytes(30);
            for round in 0..40 {
                let mut updates = Vec::new();
                for _ in 0..(1 + rng.int(60)) {
                    let key = if rng.int(3) == 0 && !model.is_empty() {
                        let k = rng.int(model.len());
                        model.keys().nth(k).cloned().unwrap_or_default()
                    } else if rng.int(2) == 0 {
                        let mut k = prefix.clone();
                        k.extend(rng.bytes(2));
                        k
                    } else {
                        rng.bytes(32)
                    };
                    let value = match rng.int(4) {
                        0 => Vec::new(),
                        1 => {
                            let n = 1 + rng.int(3);
                            rng.bytes(n)
                        }
                        _ => {
                            let n = 1 + rng.int(80);
                            rng.bytes(n)
                        }
                    };
                    updates.push((key, value));
                }
                if round % 10 == 9 {
                    // Delete everything.
                    updates = model
                        .keys()
                        .map(|k: &Vec<u8>| (k.clone(), Vec::new()))
                        .collect();
                }
                root = apply(&mut store, root, &updates);
                for (k, v) in &updates {
                    if v.is_empty() {
                        model.remove(k);
                    } else {
                        model.insert(k.clone(), v.clone());
                    }
                }
                assert_eq!(root, expected(&model), "seed {seed} round {round}");
            }
        }
    }

    #[test]
    fn missing_and_malformed_nodes_are_errors() {
        let mut store = Store::default();
        let updates: Vec<(Vec<u8>, Vec<u8>)> =
            (0..50u8).map(|i| (vec![i; 32], vec![i; 40])).collect();
        let root = apply(&mut store, EMPTY_ROOT, &updates);
        let mut empty = Store::default();
        let job = Job {
            root,
            updates: vec![(&[1u8; 32][..], &[2u8; 3][..])],
        };
        assert_eq!(
            apply_updates_many(&[job], &mut empty),
            Err(UpdateError::MissingNode(root))
        );
        for garbage in [
            &[][..],
            &[0xc0],
            &[0xc1, 0x80],
            &[0xf8],
            &[0xff, 1, 2],
            &[0xc2, 0x20, 0x85],
            &[0xc3, 0x00, 0x81, 0x05],
            &[0xc2, 0xc0, 0x80],
            &[0xc3, 0x80, 0x80, 0x80],
            &[0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ] {
            let mut bad_store = Store::default();
            bad_store.nodes.insert(root, garbage.to_vec());
            let job = Job {
                root,
                updates: vec![(&[1u8; 32][..], &[2u8; 3][..])],
            };
            assert!(matches!(
                apply_updates_many(&[job], &mut bad_store),
                Err(UpdateError::BadNode(_))
            ));
        }
        // A node that refers to itself is cut off by the depth bound, not the stack.
        let mut rlp = vec![0xe2, 0x00, 0xa0];
        rlp.extend_from_slice(&[0u8; 32]);
        let self_hash = [7u8; 32];
        rlp[3..35].copy_from_slice(&self_hash);
        let mut looped = Store::default();
        looped.nodes.insert(self_hash, rlp);
        let job = Job {
            root: self_hash,
            updates: vec![(&[1u8; 32][..], &[2u8; 3][..])],
        };
        assert!(matches!(
            apply_updates_many(&[job], &mut looped),
            Err(UpdateError::BadNode(_))
        ));
    }

    #[test]
    fn empty_inputs() {
        let mut store = Store::default();
        let out = apply_updates_many(&[], &mut store).expect("no jobs");
        assert!(out.roots.is_empty());
        let job = Job {
            root: EMPTY_ROOT,
            updates: vec![(&[1u8; 32][..], &[][..])],
        };
        let out = apply_updates_many(&[job], &mut store).expect("delete from empty");
        assert_eq!(out.roots, vec![EMPTY_ROOT]);
        assert!(out.hashes.is_empty());
    }

    /// `cargo test --release --offline -- --ignored --nocapture bench_`: 100,000 hashed keys with 70-byte values
    /// into an empty trie (bench/trie.ts `applyUpdates 100k into empty`), keys and values packed in input order as
    /// the JS caller passes them.
    #[test]
    #[ignore]
    fn bench_build_into_empty() {
        let mut rng = Rng(0x0bad_cafe_f00d_0001);
        let n = 100_000;
        let keys: Vec<u8> = (0..n).flat_map(|_| rng.bytes(32)).collect();
        let values: Vec<u8> = (0..n).flat_map(|_| rng.bytes(70)).collect();
        let updates: Vec<(&[u8], &[u8])> = (0..n)
            .map(|i| (&keys[32 * i..32 * i + 32], &values[70 * i..70 * i + 70]))
            .collect();
        let mut store = Store::default();
        let mut cpu = Vec::new();
        for _ in 0..12 {
            let job = Job {
                root: EMPTY_ROOT,
                updates: updates.clone(),
            };
            let (t, c) = (std::time::Instant::now(), thread_cpu_ms());
            let out = apply_updates_many(&[job], &mut store).expect("build");
            cpu.push(thread_cpu_ms() - c);
            println!(
                "100k into empty: {:?} wall, {} new nodes",
                t.elapsed(),
                out.hashes.len()
            );
        }
        cpu.sort_by(f64::total_cmp);
        println!(
            "thread CPU ms: min {:.1}, median {:.1}",
            cpu[0],
            cpu[cpu.len() / 2]
        );
    }

    /// CPU time of the calling thread (a loaded machine makes wall times meaningless).
    fn thread_cpu_ms() -> f64 {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        unsafe extern "C" {
            fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: clock_gettime writes one timespec; Linux's CLOCK_THREAD_CPUTIME_ID.
        unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.sec as f64 * 1e3 + ts.nsec as f64 / 1e6
    }

    /// `cargo test --release --offline -- --ignored --nocapture bench_`: 10,000 updates on a 200,000-key trie.
    #[test]
    #[ignore]
    fn bench_update_on_large_trie() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut store = Store::default();
        let keys: Vec<Vec<u8>> = (0..200_000).map(|_| rng.bytes(32)).collect();
        let all: Vec<(Vec<u8>, Vec<u8>)> =
            keys.iter().map(|k| (k.clone(), rng.bytes(70))).collect();
        let root = apply(&mut store, EMPTY_ROOT, &all);
        for _ in 0..5 {
            let updates: Vec<(Vec<u8>, Vec<u8>)> = (0..10_000)
                .map(|_| {
                    let k = keys[rng.int(keys.len())].clone();
                    (k, rng.bytes(70))
                })
                .collect();
            let job = Job {
                root,
                updates: updates
                    .iter()
                    .map(|(k, v)| (k.as_slice(), v.as_slice()))
                    .collect(),
            };
            store.reads = 0;
            let t = std::time::Instant::now();
            let out = apply_updates_many(&[job], &mut store).expect("update");
            println!(
                "10k on 200k: {:?}, {} reads, {} new nodes",
                t.elapsed(),
                store.reads,
                out.hashes.len()
            );
        }
    }
}
