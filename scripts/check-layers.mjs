#!/usr/bin/env node
// The one-way layers of src/ (docs/architecture.md): reads every import of every .ts file under src/ and fails when
// one crosses a layer the wrong way. Run from .ci/run and from test/unit/scripts/checkLayers.test.ts.
//
//   node scripts/check-layers.mjs          exit 1 and one line per violation, or "layers: ok"
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Folder-level import cycles among src/main/exec/* folders fail the check (state readers live in state/, the chain
 * view and pending block in chain/, the call executor beside the executor factory in evm/). Turning this off prints
 * the cycles instead of failing.
 */
export const FAIL_ON_EXEC_FOLDER_CYCLES = true;

// Paths are relative to src/ and end with '/' for folders. A file matches the longest rule whose `from` prefixes it.
// `allow`: the only project folders it may import (its own folder is always allowed); `deny`: folders it may not
// import; `except`: files exempt from `deny` for the folders listed.
export const RULES = [
  { from: 'main/native/', allow: [], why: 'the native loader is the bottom layer' },
  { from: 'main/primitives/', allow: ['main/native/'], why: 'pure code: imports only itself and the native loader' },
  {
    from: 'main/protocol/',
    allow: ['main/primitives/', 'main/native/'],
    why: 'wire formats and codecs shared by the programs and the workers',
  },
  {
    from: 'workers/',
    allow: ['main/primitives/', 'main/protocol/', 'main/native/'],
    why: 'task modules run in pool threads: pure code, protocol codecs and the native loader only',
  },
  {
    from: 'main/batcher/',
    allow: ['main/protocol/', 'main/primitives/', 'main/common/', 'main/native/'],
    // The program's entry point reads its command line through the CLI framework.
    except: { 'main/batcher/main.ts': ['main/cli/'] },
    why: 'the batcher shares only the protocol layer with the other programs',
  },
  {
    from: 'main/exec/',
    deny: ['main/node/', 'main/batcher/', 'main/devnet/', 'main/pair/'],
    why: 'tern-exec does not depend on the other programs',
  },
  {
    from: 'main/node/',
    deny: ['main/exec/', 'main/batcher/', 'main/devnet/', 'main/pair/'],
    // The in-process engine calls tern-exec's handlers directly: the one seam between the two programs.
    except: { 'main/node/engine/inProcess.ts': ['main/exec/'] },
    why: 'tern-node reaches tern-exec only through the Engine interface',
  },
  {
    from: 'main/common/',
    deny: ['main/exec/', 'main/node/', 'main/batcher/', 'main/devnet/', 'main/pair/', 'main/pool/'],
    why: 'shared infrastructure does not depend on a program',
  },
  {
    from: 'main/pool/',
    deny: ['main/exec/', 'main/node/', 'main/batcher/', 'main/devnet/', 'main/pair/'],
    why: 'the worker pools do not depend on a program',
  },
];

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function* tsFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Every relative import of every .ts file under `srcDir`, as paths relative to it. */
export function importGraph(srcDir) {
  const graph = new Map();
  for (const file of tsFiles(srcDir)) {
    const from = relative(srcDir, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const targets = [];
    for (const m of text.matchAll(IMPORT)) {
      const to = relative(srcDir, normalize(join(dirname(file), m[1])))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts');
      if (!to.startsWith('..')) targets.push(to);
    }
    graph.set(from, targets);
  }
  return graph;
}

function ruleFor(file) {
  let best;
  for (const rule of RULES)
    if (file.startsWith(rule.from) && (best === undefined || rule.from.length > best.from.length)) best = rule;
  return best;
}

/** The folder that matters for a rule: main/<area>/ or workers/. */
function area(file) {
  const parts = file.split('/');
  return parts[0] === 'workers' ? 'workers/' : `${parts[0]}/${parts[1]}/`;
}

/** Layer violations of a graph, one readable line each. */
export function violations(graph) {
  const out = [];
  for (const [from, targets] of graph) {
    const rule = ruleFor(from);
    if (rule === undefined) continue;
    const exempt = rule.except?.[from] ?? [];
    for (const to of targets) {
      if (to.startsWith(rule.from) || area(to) === area(from)) continue;
      if (exempt.some((p) => to.startsWith(p))) continue;
      const bad =
        rule.allow !== undefined ? !rule.allow.some((p) => to.startsWith(p)) : rule.deny.some((p) => to.startsWith(p));
      if (bad) out.push(`${from} imports ${to}: ${rule.from} ${rule.why}`);
    }
  }
  return out;
}

/** Folder-level cycles among src/main/exec/* folders (strongly connected components of more than one folder). */
export function execFolderCycles(graph) {
  const folderOf = (f) => {
    const parts = f.split('/');
    return parts[0] === 'main' && parts[1] === 'exec' && parts.length > 3 ? parts[2] : undefined;
  };
  const edges = new Map();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    if (a === undefined) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    for (const to of targets) {
      const b = folderOf(to);
      if (b !== undefined && b !== a) edges.get(a).add(b);
    }
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const sccs = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) sccs.push(scc.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return sccs;
}

/** Runs the check over `srcDir`; returns the report lines and whether it passed. */
export function checkLayers(srcDir, failOnExecCycles = FAIL_ON_EXEC_FOLDER_CYCLES) {
  const graph = importGraph(srcDir);
  const lines = violations(graph);
  const cycles = execFolderCycles(graph);
  const cycleLines = cycles.map((c) => `folder-level import cycle among src/main/exec/: ${c.join(' ↔ ')}`);
  const ok = lines.length === 0 && (!failOnExecCycles || cycles.length === 0);
  const notes = failOnExecCycles
    ? []
    : cycleLines.map((l) => `${l} (not failed: FAIL_ON_EXEC_FOLDER_CYCLES is off in scripts/check-layers.mjs)`);
  return { ok, errors: failOnExecCycles ? [...lines, ...cycleLines] : lines, notes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { ok, errors, notes } = checkLayers(join(root, 'src'));
  for (const n of notes) console.log(n);
  for (const e of errors) console.error(e);
  console.log(ok ? 'layers: ok' : `layers: ${errors.length} violation(s)`);
  process.exit(ok ? 0 : 1);
}
