// Summarises a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file): the functions with the most self time, and
// self time grouped by area (package or source folder), so the owners of each stage see where the time goes.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  readonly name: string;
  readonly ms: number;
  readonly percent: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly functions: ProfileRow[];
  readonly areas: ProfileRow[];
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  return url.replace(/^file:\/\//, '');
}

/** The area of a frame: `@scope/pkg` or `pkg` for dependencies, the folder for tern's own code. */
function areaOf(cf: CallFrame): string {
  if (cf.url === '') return cf.functionName.startsWith('(') ? cf.functionName : '(native)';
  if (cf.url.startsWith('node:')) return 'node: builtins';
  const u = shortUrl(cf.url);
  if (cf.url.includes('node_modules/')) {
    const parts = u.split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? u);
  }
  const parts = u.split('/');
  return parts.slice(0, Math.min(parts.length - 1, 4)).join('/');
}

function rows(map: Map<string, number>, totalUs: number, limit: number): ProfileRow[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, ms: us / 1000, percent: (100 * us) / totalUs }));
}

export function summariseProfile(path: string, limit = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const us = selfUs.get(n.id) ?? 0;
    if (us === 0) continue;
    total += us;
    const cf = n.callFrame;
    const name = `${cf.functionName || '(anonymous)'} ${cf.url === '' ? '' : `${shortUrl(cf.url)}:${cf.lineNumber + 1}`}`;
    byFunction.set(name.trim(), (byFunction.get(name.trim()) ?? 0) + us);
    const area = areaOf(cf);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  return { totalMs: total / 1000, functions: rows(byFunction, total, limit), areas: rows(byArea, total, limit) };
}

export function formatProfile(s: ProfileSummary): string {
  const line = (r: ProfileRow) => `${r.ms.toFixed(0).padStart(8)} ms ${r.percent.toFixed(1).padStart(5)} %  ${r.name}`;
  return [
    `profile: ${(s.totalMs / 1000).toFixed(1)} s of samples on the main thread`,
    'self time by area:',
    ...s.areas.slice(0, 15).map(line),
    'top functions by self time:',
    ...s.functions.map(line),
  ].join('\n');
}

// --- Opcode split: each sample goes to the innermost @ethereumjs/evm opcode handler (or dynamic-gas function) on
// its stack, so a nested CALL's inner opcodes count as themselves and an SLOAD counts its state read. The handlers
// are anonymous entries of the maps in opcodes/functions.js and opcodes/gas.js; their opcodes come from the source.

/** The opcode classes of the split. */
function opcodeClass(op: number): string {
  if ((op >= 0x01 && op <= 0x0b) || (op >= 0x10 && op <= 0x1d)) return 'arithmetic/bitwise';
  if (op === 0x20) return 'KECCAK256';
  if (op === 0x31 || op === 0x3b || op === 0x3c || op === 0x3f) return 'account reads (BALANCE/EXTCODE*)';
  if (op === 0x35 || op === 0x36 || op === 0x37 || op === 0x39 || op === 0x3e) return 'calldata/code/returndata';
  if (op >= 0x30 && op <= 0x4a) return 'environment/block';
  if (op === 0x54 || op === 0x55) return 'storage (SLOAD/SSTORE)';
  if (op === 0x5c || op === 0x5d) return 'transient storage';
  if (op === 0x51 || op === 0x52 || op === 0x53 || op === 0x59 || op === 0x5e) return 'memory';
  if (op >= 0xa0 && op <= 0xa4) return 'LOG';
  if (op >= 0xf0) return 'calls/create/return';
  return 'stack/push/jump';
}

/** Start line (0-based) → opcode of each entry of a handler map's source, sorted by line. */
function handlerLines(source: string): Array<[line: number, op: number]> {
  const lines = source.split('\n');
  const out: Array<[number, number]> = [];
  for (let i = 1; i < lines.length; i++) {
    const m = /^\s{8}(0x[0-9a-fA-F]{2}),\s*$/.exec(lines[i] as string);
    if (m !== null && /^\s{4}\[\s*$/.test(lines[i - 1] as string)) out.push([i, Number(m[1])]);
    // tern's replacements (src/main/exec/evm/fastOpcodes.ts): `handlers.set(0x52, (runState) => {`.
    const t = /handlers\.set\((0x[0-9a-fA-F]{2}),/.exec(lines[i] as string);
    if (t !== null) out.push([i, Number(t[1])]);
  }
  return out;
}

export interface OpcodeSplit {
  readonly totalMs: number;
  /** Time inside opcode handlers, by class. */
  readonly classes: ProfileRow[];
  /** The heaviest single opcodes. */
  readonly opcodes: ProfileRow[];
}

/** The opcode split of a CPU profile (see above); undefined when no handler was sampled. */
export function summariseOpcodes(path: string): OpcodeSplit | undefined {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const maps = new Map<string, Array<[number, number]>>();
  const opOfFrame = (cf: CallFrame): number | undefined => {
    if (!/(@ethereumjs\/evm\/dist\/esm\/opcodes\/(functions|gas)|exec\/evm\/fastOpcodes)\.js$/.test(cf.url))
      return undefined;
    let lines = maps.get(cf.url);
    if (lines === undefined) {
      try {
        lines = handlerLines(readFileSync(new URL(cf.url), 'utf8'));
      } catch {
        lines = [];
      }
      maps.set(cf.url, lines);
    }
    let op: number | undefined;
    for (const [line, o] of lines) {
      if (line > cf.lineNumber) break;
      // The handler is the anonymous function defined on the opcode's line or the next.
      if (cf.lineNumber - line <= 1) op = o;
    }
    return op;
  };
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const memo = new Map<number, number | null>();
  const innermostOp = (id: number): number | null => {
    const path: number[] = [];
    let cur: number | undefined = id;
    let found: number | null = null;
    while (cur !== undefined) {
      const known = memo.get(cur);
      if (known !== undefined) {
        found = known;
        break;
      }
      path.push(cur);
      const op = opOfFrame((byId.get(cur) as ProfileNode).callFrame);
      if (op !== undefined) {
        found = op;
        break;
      }
      cur = parent.get(cur);
    }
    for (const n of path) memo.set(n, found);
    return found;
  };
  const byOp = new Map<number, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    total += us;
    const op = innermostOp(id);
    if (op !== null) byOp.set(op, (byOp.get(op) ?? 0) + us);
  });
  if (byOp.size === 0) return undefined;
  const byClass = new Map<string, number>();
  let inHandlers = 0;
  for (const [op, us] of byOp) {
    inHandlers += us;
    byClass.set(opcodeClass(op), (byClass.get(opcodeClass(op)) ?? 0) + us);
  }
  byClass.set('(outside opcode handlers: interpreter loop, tx setup, state root, …)', total - inHandlers);
  const named = new Map([...byOp].map(([op, us]) => [`0x${op.toString(16).padStart(2, '0')}`, us]));
  return { totalMs: total / 1000, classes: rows(byClass, total, 20), opcodes: rows(named, total, 12) };
}

export function formatOpcodes(s: OpcodeSplit): string {
  const line = (r: ProfileRow) => `${r.ms.toFixed(0).padStart(8)} ms ${r.percent.toFixed(1).padStart(5)} %  ${r.name}`;
  return [
    'time by opcode class (sampled: each sample to the innermost opcode handler on its stack, callees included):',
    ...s.classes.map(line),
    'heaviest opcodes:',
    ...s.opcodes.map(line),
  ].join('\n');
}
