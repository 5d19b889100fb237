// The devnet's live view: L1 head; each node's unsafe/safe/finalized L2 heads (from its rollup node, or from its
// engine's block tags when the rollup node is not running); each replica's lag behind the sequencer and whether
// both engines hold the same block at the replica's safe head.
import type { DevnetInfo, NodeInfo } from './launcher.js';
import { rpcCall } from './rpc.js';

export interface Heads {
  unsafe?: number;
  safe?: number;
  finalized?: number;
}

export interface NodeStatus extends Heads {
  name: string;
  source: 'node' | 'engine' | 'none';
  /** Replicas: sequencer unsafe minus this node's safe head. */
  lag?: number;
  /** Replicas: whether the engines agree on the block at this node's safe head (undefined: not comparable). */
  agrees?: boolean;
}

export interface StatusSnapshot {
  l1Head?: number;
  nodes: NodeStatus[];
}

const num = (v: unknown): number | undefined => (typeof v === 'string' ? Number(BigInt(v)) : undefined);

async function optional<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch {
    return undefined;
  }
}

interface SyncStatus {
  unsafe_l2?: { number?: number };
  safe_l2?: { number?: number };
  finalized_l2?: { number?: number };
}

async function headsOf(n: NodeInfo): Promise<{ heads: Heads; source: NodeStatus['source'] }> {
  if (n.nodeRpc !== null) {
    const s = await optional(rpcCall<SyncStatus>(n.nodeRpc, 'optimism_syncStatus', [], 2000));
    if (s) {
      const heads: Heads = {};
      if (s.unsafe_l2?.number !== undefined) heads.unsafe = s.unsafe_l2.number;
      if (s.safe_l2?.number !== undefined) heads.safe = s.safe_l2.number;
      if (s.finalized_l2?.number !== undefined) heads.finalized = s.finalized_l2.number;
      return { heads, source: 'node' };
    }
  }
  const tag = (t: string) =>
    optional(rpcCall<{ number?: string } | null>(n.execRpc, 'eth_getBlockByNumber', [t, false], 2000));
  const [latest, safe, finalized] = await Promise.all([tag('latest'), tag('safe'), tag('finalized')]);
  if (!latest) return { heads: {}, source: 'none' };
  const heads: Heads = {};
  const u = num(latest.number);
  if (u !== undefined) heads.unsafe = u;
  const s = num(safe?.number);
  if (s !== undefined) heads.safe = s;
  const f = num(finalized?.number);
  if (f !== undefined) heads.finalized = f;
  return { heads, source: 'engine' };
}

async function hashAt(rpc: string, n: number): Promise<string | undefined> {
  const b = await optional(
    rpcCall<{ hash?: string } | null>(rpc, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false], 2000),
  );
  return b?.hash ?? undefined;
}

export async function snapshot(info: DevnetInfo): Promise<StatusSnapshot> {
  const [l1, heads] = await Promise.all([
    optional(rpcCall<string>(info.l1.rpc, 'eth_blockNumber', [], 2000)),
    Promise.all(info.nodes.map(headsOf)),
  ]);
  const seq = info.nodes.find((n) => n.role === 'sequencer');
  const seqHeads = heads[info.nodes.findIndex((n) => n.role === 'sequencer')]?.heads;
  const nodes = await Promise.all(
    info.nodes.map(async (n, i): Promise<NodeStatus> => {
      const h = heads[i] as { heads: Heads; source: NodeStatus['source'] };
      const out: NodeStatus = { name: n.name, source: h.source, ...h.heads };
      if (n.role === 'replica' && seq && h.heads.safe !== undefined) {
        if (seqHeads?.unsafe !== undefined) out.lag = seqHeads.unsafe - h.heads.safe;
        const [a, b] = await Promise.all([hashAt(seq.execRpc, h.heads.safe), hashAt(n.execRpc, h.heads.safe)]);
        if (a !== undefined && b !== undefined) out.agrees = a === b;
      }
      return out;
    }),
  );
  const snap: StatusSnapshot = { nodes };
  const l1Head = num(l1);
  if (l1Head !== undefined) snap.l1Head = l1Head;
  return snap;
}

const show = (v: number | undefined) => (v === undefined ? '-' : String(v));

/** One compact line, e.g. `L1 #42 | sequencer u20 s12 f0 | replica-1 u12 s12 f0 lag 8 agree@12`. */
export function formatStatus(s: StatusSnapshot): string {
  const parts = [`L1 #${show(s.l1Head)}`];
  for (const n of s.nodes) {
    let p = `${n.name} u${show(n.unsafe)} s${show(n.safe)} f${show(n.finalized)}`;
    if (n.source === 'engine') p += ' (engine)';
    if (n.source === 'none') p += ' (no answer)';
    if (n.lag !== undefined) p += ` lag ${n.lag}`;
    if (n.agrees !== undefined) p += n.agrees ? ` agree@${show(n.safe)}` : ` DIFFER@${show(n.safe)}`;
    parts.push(p);
  }
  return parts.join(' | ');
}
