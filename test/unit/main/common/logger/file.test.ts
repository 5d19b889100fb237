import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { createLogger, type LogFileOptions } from '../../../../../src/main/common/logger/index.js';
import { backupStamp } from '../../../../../src/main/common/logger/rotating.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tern-logger-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fileLogger(file: Partial<LogFileOptions>, extra: { stream?: { write(l: string): unknown } } = {}) {
  return createLogger({ level: 'info', format: 'logfmt', file: { path: join(dir, 'app.log'), ...file }, ...extra });
}

function lineNumbers(text: string): number[] {
  return [...text.matchAll(/ i=(\d+)/g)].map((m) => Number(m[1]));
}

/** Every line of every file in the directory, decompressing backups. */
function allLines(): number[] {
  const out: number[] = [];
  for (const name of readdirSync(dir)) {
    const raw = readFileSync(join(dir, name));
    out.push(...lineNumbers((name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')));
  }
  return out.sort((a, b) => a - b);
}

describe('plain file', () => {
  test('appends; close writes out the last lines', async () => {
    const root = fileLogger({});
    for (let i = 0; i < 1000; i++) root.logger.info('line', { i });
    await root.close();
    expect(lineNumbers(readFileSync(join(dir, 'app.log'), 'utf8'))).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    const again = fileLogger({});
    again.logger.info('line', { i: 1000 });
    await again.close();
    expect(lineNumbers(readFileSync(join(dir, 'app.log'), 'utf8')).length).toBe(1001);
  });

  test('flush persists what was logged without closing', async () => {
    const root = fileLogger({});
    root.logger.info('flushed', { i: 7 });
    await root.flush();
    expect(readFileSync(join(dir, 'app.log'), 'utf8')).toMatch(/msg=flushed i=7\n$/);
    await root.close();
  });

  test('creates missing directories; an unusable path fails at once with a usage error', async () => {
    const nested = createLogger({ level: 'info', format: 'json', file: { path: join(dir, 'a', 'b', 'x.log') } });
    nested.logger.warn('deep');
    await nested.close();
    expect(JSON.parse(readFileSync(join(dir, 'a', 'b', 'x.log'), 'utf8')).msg).toBe('deep');

    writeFileSync(join(dir, 'plainfile'), '');
    expect(() =>
      createLogger({ level: 'info', format: 'json', file: { path: join(dir, 'plainfile', 'x.log') } }),
    ).toThrow(UsageError);
    expect(() =>
      createLogger({ level: 'info', format: 'json', file: { path: join(dir, 'plainfile', 'x.log'), rotate: true } }),
    ).toThrow(/cannot open log file/);
  });

  test('tee writes to the console output as well', async () => {
    const seen: string[] = [];
    const root = fileLogger({ tee: true }, { stream: { write: (l: string) => seen.push(l) } });
    root.logger.info('both', { i: 1 });
    await root.close();
    expect(seen.length).toBe(1);
    expect(lineNumbers(readFileSync(join(dir, 'app.log'), 'utf8'))).toEqual([1]);
  });
});

describe('rotation', () => {
  // About 1 KB per file: each line below is ~80 bytes.
  const tinyMB = 1 / 1024;

  async function logInBursts(root: ReturnType<typeof fileLogger>, total: number): Promise<void> {
    for (let i = 0; i < total; i++) {
      root.logger.info('rotating line with some padding text', { i });
      if (i % 5 === 4) await root.flush();
    }
  }

  test('rotates at the size limit and keeps maxBackups backups with lumberjack names', async () => {
    const root = fileLogger({ rotate: true, maxSizeMB: tinyMB, maxBackups: 3, maxAgeDays: 0 });
    await logInBursts(root, 200);
    await root.close();
    const names = readdirSync(dir).sort();
    const backups = names.filter((n) => n !== 'app.log');
    expect(backups.length).toBe(3);
    for (const name of backups) expect(name).toMatch(/^app-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}(\.\d+)?\.log$/);
    // What is left is the newest lines, without gaps, ending with the last one.
    const kept = allLines();
    expect(kept[kept.length - 1]).toBe(199);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => 200 - kept.length + k));
    expect(kept.length).toBeGreaterThan(20);
  });

  test('maxBackups 0 keeps every backup', async () => {
    const root = fileLogger({ rotate: true, maxSizeMB: tinyMB, maxBackups: 0, maxAgeDays: 0 });
    await logInBursts(root, 100);
    await root.close();
    expect(allLines()).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(readdirSync(dir).length).toBeGreaterThan(4);
  });

  test('compress gzips the backups', async () => {
    const root = fileLogger({ rotate: true, maxSizeMB: tinyMB, maxBackups: 0, maxAgeDays: 0, compress: true });
    await logInBursts(root, 60);
    await root.close();
    const gz = readdirSync(dir).filter((n) => n.endsWith('.gz'));
    expect(gz.length).toBeGreaterThan(1);
    for (const name of gz) {
      expect(name).toMatch(/^app-.*\.log\.gz$/);
      expect(gunzipSync(readFileSync(join(dir, name))).toString('utf8')).toMatch(/^t=.* lvl=info msg="rotating line/);
    }
    expect(readdirSync(dir).filter((n) => n !== 'app.log' && !n.endsWith('.gz'))).toEqual([]);
    expect(allLines()).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  test('backups older than maxAgeDays are removed, newer ones and unrelated files kept', async () => {
    const old = `app-${backupStamp(new Date(Date.now() - 3 * 86_400_000))}.log`;
    const oldGz = `app-${backupStamp(new Date(Date.now() - 5 * 86_400_000))}.log.gz`;
    const recent = `app-${backupStamp(new Date(Date.now() - 3_600_000))}.log`;
    for (const name of [old, oldGz, recent, 'other.log', 'app-notastamp.log']) writeFileSync(join(dir, name), 'x\n');
    const root = fileLogger({ rotate: true, maxSizeMB: 1, maxBackups: 0, maxAgeDays: 2 });
    root.logger.info('hello', { i: 1 });
    await root.close();
    expect(readdirSync(dir).sort()).toEqual(['app-notastamp.log', 'app.log', recent, 'other.log'].sort());
  });

  test('an existing file over the limit is rotated at startup, and the live file keeps its name', async () => {
    writeFileSync(join(dir, 'app.log'), 'x'.repeat(4096));
    const root = fileLogger({ rotate: true, maxSizeMB: tinyMB, maxBackups: 5, maxAgeDays: 0 });
    root.logger.info('fresh', { i: 1 });
    await root.close();
    expect(readFileSync(join(dir, 'app.log'), 'utf8')).toMatch(/msg=fresh i=1\n$/);
    expect(readdirSync(dir).length).toBe(2);
  });
});
