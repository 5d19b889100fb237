// ethereum/tests BlockchainTests (ValidBlocks and InvalidBlocks) through tern-exec's block import: one `it` per
// test of every fixture file (see blockchainTestRunner.ts for what each checks). A failure names the file, the
// test, the block index and the reason. The last `it` prints the totals, the side-chain replays, the slowest tests
// and the wall time (also written to test-results/blockchainTests.txt).
//
// BLOCKCHAIN_TESTS=<substring> limits the run to fixture paths or test names containing it (local debugging only).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { listFixtures, readFixture, runBlockchainTest, type TestOutcome } from './blockchainTestRunner.js';

const DIR = join(FIXTURES, 'ethereum-tests', 'BlockchainTests');
const GROUPS = ['ValidBlocks', 'InvalidBlocks'] as const;
const FILTER = process.env.BLOCKCHAIN_TESTS;

interface Entry {
  group: (typeof GROUPS)[number];
  file: string;
  name: string;
}

const entries: Entry[] = [];
let fileCount = 0;
for (const group of GROUPS) {
  for (const path of listFixtures(join(DIR, group))) {
    const file = relative(DIR, path);
    fileCount++;
    for (const name of readFixture(path).keys()) {
      if (FILTER === undefined || file.includes(FILTER) || name.includes(FILTER)) entries.push({ group, file, name });
    }
  }
}

// The tests of a file run one after the other: keep only the file being run in memory.
let cached: { file: string; tests: Map<string, unknown> } | undefined;
function testOf(e: Entry): unknown {
  if (cached?.file !== e.file) cached = { file: e.file, tests: readFixture(join(DIR, e.file)) };
  return cached.tests.get(e.name);
}

const results: Array<Entry & { outcome?: TestOutcome; error?: string }> = [];
const started = performance.now();

describe('BlockchainTests', () => {
  it('finds the fixtures', () => {
    expect(fileCount).toBe(348);
    expect(entries.length).toBeGreaterThan(FILTER === undefined ? 570 : 0);
  });

  for (const group of GROUPS) {
    describe(group, () => {
      for (const e of entries.filter((x) => x.group === group)) {
        it(`${e.file} ${e.name}`, { timeout: 300_000 }, async () => {
          let outcome: TestOutcome;
          try {
            outcome = await runBlockchainTest(e.name, testOf(e));
          } catch (err) {
            const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
            results.push({ ...e, error });
            throw err;
          }
          results.push({ ...e, outcome });
          expect(outcome.failures, `${e.file} ${e.name}`).toEqual([]);
        });
      }
    });
  }

  it('reports the totals', () => {
    const seconds = (performance.now() - started) / 1000;
    const lines: string[] = [];
    for (const group of GROUPS) {
      const mine = results.filter((r) => r.group === group);
      const passed = mine.filter((r) => r.outcome !== undefined && r.outcome.failures.length === 0).length;
      lines.push(`${group}: ${passed}/${mine.length} tests passed`);
    }
    const blocks = results.reduce((n, r) => n + (r.outcome?.blocks ?? 0), 0);
    lines.push(`${results.length} tests, ${blocks} blocks, ${fileCount} files, ${seconds.toFixed(1)} s`);
    for (const r of results) {
      if (r.error !== undefined) lines.push(`FAIL ${r.file} ${r.name}\n      ${r.error}`);
      else for (const f of r.outcome?.failures ?? []) lines.push(`FAIL ${r.file} ${r.name}\n      ${f}`);
    }
    const reorgs = results.filter((r) => (r.outcome?.reorgs ?? 0) > 0);
    lines.push(`${reorgs.length} tests import side-chain blocks (replayed into a fresh database):`);
    for (const r of reorgs) lines.push(`  ${r.file} ${r.name}: ${r.outcome?.reorgs} switches`);
    const slowest = [...results].sort((a, b) => (b.outcome?.ms ?? 0) - (a.outcome?.ms ?? 0)).slice(0, 10);
    lines.push('slowest tests:', ...slowest.map((r) => `  ${(r.outcome?.ms ?? 0).toFixed(0)} ms ${r.file} ${r.name}`));
    const report = `${lines.join('\n')}\n`;
    process.stdout.write(report);
    if (FILTER === undefined) {
      mkdirSync(join(ROOT, 'test-results'), { recursive: true });
      writeFileSync(join(ROOT, 'test-results', 'blockchainTests.txt'), report);
    }
    expect(results.length).toBe(entries.length);
  });
});
