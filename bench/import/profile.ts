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
