// ethereum/tests GeneralStateTests, post.Cancun: every case through tern's state transition (see
// stateTestRunner.ts). One `it` per folder runs its fixtures; a case that fails does not fail the folder (the
// suite's bar is an overall pass rate of at least 99.5 %), a fixture of an unknown shape does. The last `it`
// prints every failure by file, test, index and reason, and checks the rate.
//
// STATE_TESTS=<substring> limits the run to fixture paths containing it (local debugging only).
// STATE_TESTS_PROGRESS=<file> logs each folder's result and time to that file as it finishes.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { type CaseOutcome, listFixtures, StateTestRunner } from './stateTestRunner.js';

const DIR = join(FIXTURES, 'ethereum-tests', 'GeneralStateTests');
const FILTER = process.env.STATE_TESTS;
/** STATE_TESTS_PROGRESS=<file> appends one line per finished folder to that file. */
const PROGRESS = process.env.STATE_TESTS_PROGRESS;
const MIN_PASS_RATE = 0.995;

/**
 * Folders left out of the default run because they take too long for CI on this runner, single-threaded:
 * VMTests/vmPerformance (23 cases, ~13 min) and stTimeConsuming (5,190 cases, > 10 min), dominated by
 * @ethereumjs/evm's per-call jump-destination analysis. They pass where measured so far; the tracker names
 * the gap. STATE_TESTS=<folder> runs one of them on demand.
 */
const EXCLUDED_FOLDERS = ['VMTests/vmPerformance', 'stTimeConsuming'] as const;

const isExcluded = (f: string) =>
  EXCLUDED_FOLDERS.some((d) => relative(DIR, f).split(sep).join('/').startsWith(`${d}/`));
const files = listFixtures(DIR).filter((f) => (FILTER === undefined ? !isExcluded(f) : f.includes(FILTER)));
const byFolder = new Map<string, string[]>();
for (const f of files) {
  const folder = relative(DIR, f).split(sep).slice(0, -1).join('/');
  const list = byFolder.get(folder) ?? [];
  list.push(f);
  byFolder.set(folder, list);
}

const outcomes: CaseOutcome[] = [];
const shapeErrors: string[] = [];
let runner: StateTestRunner;
const started = performance.now();

beforeAll(async () => {
  runner = await StateTestRunner.create();
});

describe('GeneralStateTests (post.Cancun)', () => {
  it('finds the fixtures, and leaves out only the named slow folders', () => {
    const all = listFixtures(DIR);
    expect(all.length).toBeGreaterThan(2700);
    if (FILTER === undefined) {
      const left = new Set(
        all
          .filter(isExcluded)
          .map((f) => relative(DIR, f).split(sep).slice(0, -1).join('/').split('/').slice(0, 2).join('/')),
      );
      expect([...left].sort()).toEqual(['VMTests/vmPerformance', 'stTimeConsuming']);
      expect(files.length).toBe(all.length - all.filter(isExcluded).length);
    }
  });

  for (const [folder, list] of byFolder) {
    it(folder, { timeout: 1_800_000 }, async () => {
      const errors: string[] = [];
      const t0 = performance.now();
      const before = outcomes.length;
      for (const file of list) {
        try {
          outcomes.push(...(await runner.runFile(file, DIR)));
        } catch (err) {
          errors.push(`${relative(DIR, file)}: ${(err as Error).message}`);
        }
      }
      shapeErrors.push(...errors);
      const mine = outcomes.slice(before);
      const bad = mine.filter((o) => !o.ok).length;
      const line = `  ${folder}: ${mine.length - bad}/${mine.length} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`;
      if (PROGRESS !== undefined) appendFileSync(PROGRESS, line);
      expect(errors, 'fixtures of an unknown shape').toEqual([]);
    });
  }

  it(`passes at least ${MIN_PASS_RATE * 100} % of the cases`, () => {
    const failed = outcomes.filter((o) => !o.ok);
    const other = outcomes.filter((o) => o.ok && o.otherReason !== undefined);
    const passed = outcomes.length - failed.length;
    const seconds = (performance.now() - started) / 1000;
    const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10);
    const lines = [
      `GeneralStateTests post.Cancun: ${passed}/${outcomes.length} passed (${((100 * passed) / Math.max(1, outcomes.length)).toFixed(3)} %), ${failed.length} failed, ${files.length} files, ${seconds.toFixed(1)} s`,
      ...failed.map((o) => `FAIL ${o.id}\n      ${o.reason}`),
      ...(other.length > 0 ? [`${other.length} expected rejections with another code:`] : []),
      ...other.map((o) => `  note ${o.id}: ${o.otherReason}`),
      'slowest cases:',
      ...slowest.map((o) => `  ${o.ms.toFixed(0)} ms ${o.id}`),
    ];
    const report = `${lines.join('\n')}\n`;
    process.stdout.write(report);
    if (FILTER === undefined) writeFileSync(join(ROOT, 'test-results', 'generalStateTests.txt'), report);
    expect(shapeErrors).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(passed / outcomes.length).toBeGreaterThanOrEqual(MIN_PASS_RATE);
  });
});

afterAll(() => {});
