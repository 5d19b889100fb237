// kill -9 safety of LmdbStore: a child process (crashChild.mjs, running the compiled dist/ code) commits numbered
// batches in a loop and is SIGKILLed at random moments, several times over the same database; after each kill the
// database is reopened here and every committed batch must be whole and no later batch may be partly there.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbStore } from '../../../../../src/main/common/db/lmdb.js';
import { projectRoot } from '../../../../../src/main/common/paths.js';
import { batchValue, decodeN, encodeN, key, keysIn, LAST } from './crashLayout.mjs';

const CHILD = fileURLToPath(new URL('./crashChild.mjs', import.meta.url));
const DIST = join(projectRoot(), 'dist', 'src', 'main', 'common', 'db', 'lmdb.js');

let dir = '';
beforeAll(() => {
  if (!existsSync(DIST))
    throw new Error(`${DIST} is missing: build first (npx tsc -p tsconfig.build.json; npm test does it)`);
  dir = mkdtempSync(join(tmpdir(), 'tern-crash-'));
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  /** Resolves once the child has opened the database. */
  started: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Highest batch number whose commit() resolved in the child. */
  reported(): number;
  stderr(): string;
}

function runChild(path: string, inflight: number): Run {
  const child = spawn(process.execPath, [CHILD, path, String(inflight)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let reported = 0;
  let stderr = '';
  let buffered = '';
  let onStart: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const [what, n] = line.split(' ');
      if (what === 'start') onStart();
      else if (what === 'committed') reported = Math.max(reported, Number(n));
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  void exited.then(() => onStart());
  return { child, started, exited, reported: () => reported, stderr: () => stderr };
}

/** Checks the database against the layout; returns the last committed batch number. */
async function verify(path: string, mustHave: number): Promise<number> {
  const store = new LmdbStore({ path });
  try {
    const lastBytes = store.get(LAST);
    const last = lastBytes === undefined ? 0 : decodeN(lastBytes);
    // Durable: every commit the child saw resolve survived the kill.
    expect(last).toBeGreaterThanOrEqual(mustHave);
    // Whole: every key of every batch up to `last`, with its exact bytes.
    let expected = 0;
    for (let n = 1; n <= last; n++) {
      for (let i = 0; i < keysIn(n); i++) {
        const got = store.get(key(`k/${n}/${i}`));
        if (got === undefined || Buffer.compare(got, batchValue(n, i)) !== 0)
          throw new Error(`batch ${n} (last ${last}) is torn: key ${i} is ${got === undefined ? 'missing' : 'wrong'}`);
      }
      expected += keysIn(n);
    }
    // Nothing of a batch after `last`.
    let seen = 0;
    for (const { key: k } of store.iterate({ prefix: key('k/') })) {
      const n = Number(new TextDecoder().decode(k).split('/')[1]);
      if (n > last) throw new Error(`key of batch ${n} present but the last committed batch is ${last}`);
      seen++;
    }
    expect(seen).toBe(expected);
    for (let j = 0; j < 4; j++) expect(store.get(key(`x/${j}`))).toEqual(last === 0 ? undefined : encodeN(last));
    const ds = [...store.iterate({ prefix: key('d/') })].map((e) => new TextDecoder().decode(e.key));
    expect(ds).toEqual(last === 0 ? [] : [`d/${last}`]);
    return last;
  } finally {
    await store.close();
  }
}

describe('LmdbStore under kill -9', () => {
  it('keeps every committed batch whole and loses none that were reported committed', async () => {
    const path = join(dir, 'db');
    const seed = Date.now();
    let x = seed % 2147483647 || 1;
    const random = (): number => {
      x = (x * 48271) % 2147483647;
      return x / 2147483647;
    };
    let mustHave = 0;
    let last = 0;
    const ROUNDS = 8;
    for (let round = 0; round < ROUNDS; round++) {
      const run = runChild(path, round % 2 === 0 ? 1 : 4);
      await run.started;
      // A random moment: right away (often mid-commit of the first batches), or after up to 400 ms of commits.
      const delay = round === 0 ? 150 : Math.floor(random() * 400);
      await new Promise((r) => setTimeout(r, delay));
      run.child.kill('SIGKILL');
      const { signal } = await run.exited;
      expect(signal, `child died on its own (seed ${seed}): ${run.stderr()}`).toBe('SIGKILL');
      mustHave = Math.max(mustHave, run.reported());
      const now = await verify(path, mustHave);
      expect(now, `seed ${seed}`).toBeGreaterThanOrEqual(last);
      last = now;
    }
    // The rounds did commit a fair amount of work between the kills.
    expect(last).toBeGreaterThan(20);
  }, 120_000);
});
