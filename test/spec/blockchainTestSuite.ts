// One vitest suite over a folder of BlockchainTests fixtures: one `it` per test of every fixture file (see
// blockchainTestRunner.ts for what each checks), optionally one shard of them so vitest can run shards as separate
// files on separate cores. A failure names the file, the test, the block index and the reason. The last `it`
// prints the totals, the side-chain replays, the slowest tests and the wall time (also written to
// test-results/<report>.txt).
//
// BLOCKCHAIN_TESTS=<substring> limits the run to fixture paths or test names containing it (local debugging only).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { listFixtures, readFixture, runBlockchainTest, type TestOutcome } from './blockchainTestRunner.js';

export interface BlockchainSuite {
  /** The describe block's title. */
  title: string;
  /** The fixture root; each group is a folder under it. */
  dir: string;
  groups: readonly string[];
  /** How many fixture files the groups hold (all shards together): a changed fixture set fails loudly. */
  files: number;
  /** At least this many tests (all shards together) when unfiltered. */
  minTests: number;
  /** Name of the report under test-results/ (without .txt); a shard appends its number. */
  report: string;
  /** This file's shard (1-based) of `shards`: the files are dealt out by index. */
  shard?: number;
  shards?: number;
}

interface Entry {
  group: string;
  file: string;
  name: string;
}

export function defineBlockchainTests(s: BlockchainSuite): void {
  const FILTER = process.env.BLOCKCHAIN_TESTS;
  const shard = s.shard ?? 1;
  const shards = s.shards ?? 1;
  const entries: Entry[] = [];
  let fileCount = 0;
  let testCount = 0;
  for (const group of s.groups) {
    for (const path of listFixtures(join(s.dir, group))) {
      const file = relative(s.dir, path);
      const mine = fileCount % shards === shard - 1;
      fileCount++;
      for (const name of readFixture(path).keys()) {
        testCount++;
        if (mine && (FILTER === undefined || file.includes(FILTER) || name.includes(FILTER))) {
          entries.push({ group, file, name });
        }
      }
    }
  }

  // The tests of a file run one after the other: keep only the file being run in memory.
  let cached: { file: string; tests: Map<string, unknown> } | undefined;
  function testOf(e: Entry): unknown {
    if (cached?.file !== e.file) cached = { file: e.file, tests: readFixture(join(s.dir, e.file)) };
    return cached.tests.get(e.name);
  }

  const results: Array<Entry & { outcome?: TestOutcome; error?: string }> = [];
  const started = performance.now();
  const title = shards > 1 ? `${s.title} (shard ${shard} of ${shards})` : s.title;

  describe(title, () => {
    it('finds the fixtures', () => {
      expect(fileCount).toBe(s.files);
      expect(testCount).toBeGreaterThanOrEqual(s.minTests);
      expect(entries.length).toBeGreaterThan(0);
    });

    for (const group of s.groups) {
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
      for (const group of s.groups) {
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
      lines.push(
        'slowest tests:',
        ...slowest.map((r) => `  ${(r.outcome?.ms ?? 0).toFixed(0)} ms ${r.file} ${r.name}`),
      );
      const report = `${lines.join('\n')}\n`;
      process.stdout.write(report);
      if (FILTER === undefined) {
        mkdirSync(join(ROOT, 'test-results'), { recursive: true });
        const name = shards > 1 ? `${s.report}.part${shard}` : s.report;
        writeFileSync(join(ROOT, 'test-results', `${name}.txt`), report);
      }
      expect(results.length).toBe(entries.length);
    });
  });
}
