// geth's --log.rotate (lumberjack) on rotating-file-stream: the live file keeps its name; a full file is renamed
// to `<name>-<UTC time><ext>` (gzipped to `...<ext>.gz` with compress), and old backups are removed by count and
// by age. rotating-file-stream only prunes by count, through a history file of its own, so pruning is done here.
import { appendFileSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { createStream, type Options, type RotatingFileStream } from 'rotating-file-stream';
import { LOG_FILE_DEFAULTS } from './interface.js';
import { checkLogFile, reportFailure, type Sink } from './sink.js';

export interface RotatingFileOptions {
  path: string;
  maxSizeMB?: number;
  maxBackups?: number;
  maxAgeDays?: number;
  compress?: boolean;
}

const DAY_MS = 86_400_000;
const STAMP = String.raw`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}`;

/** lumberjack's backup time stamp, UTC: `2006-01-02T15-04-05.000`. */
export function backupStamp(time: Date): string {
  return time.toISOString().slice(0, 23).replace(/:/g, '-');
}

export class RotatingFileSink implements Sink {
  readonly isTTY = false;
  private readonly out: RotatingFileStream;
  private readonly file: string;
  private readonly dir: string;
  private readonly stem: string;
  private readonly ext: string;
  private readonly maxBackups: number;
  private readonly maxAgeDays: number;
  /** Lines that arrived while a write was in flight: they go out together as the next write. */
  private pending = '';
  private inFlight = false;
  private waiters: Array<() => void> = [];
  private pruning: Promise<void> = Promise.resolve();
  private closed = false;
  private failed = false;
  private readonly onExit = (): void => this.writePendingSync();

  constructor(opts: RotatingFileOptions) {
    this.file = resolve(opts.path);
    checkLogFile(this.file);
    this.dir = dirname(this.file);
    const base = basename(this.file);
    this.ext = extname(base);
    this.stem = base.slice(0, base.length - this.ext.length);
    this.maxBackups = opts.maxBackups ?? LOG_FILE_DEFAULTS.maxBackups;
    this.maxAgeDays = opts.maxAgeDays ?? LOG_FILE_DEFAULTS.maxAgeDays;
    const sizeMB = opts.maxSizeMB !== undefined && opts.maxSizeMB > 0 ? opts.maxSizeMB : LOG_FILE_DEFAULTS.maxSizeMB;
    const gz = opts.compress === true ? '.gz' : '';
    const generator = (time: number | Date | null, index?: number): string => {
      if (!time) return base;
      const at = typeof time === 'number' ? new Date(time) : time;
      // A second rotation within the same millisecond gets a counter rather than overwriting.
      const n = index !== undefined && index > 1 ? `.${index}` : '';
      return `${this.stem}-${backupStamp(at)}${n}${this.ext}${gz}`;
    };
    const options: Options = { path: this.dir, size: `${Math.max(1, Math.round(sizeMB * 1024 * 1024))}B` };
    if (opts.compress === true) options.compress = 'gzip';
    this.out = createStream(generator, options);
    this.out.on('rotated', () => this.prune());
    this.out.on('error', (err) => this.fail(err));
    // Non-fatal trouble (a backup that vanished before removal): nothing to do.
    this.out.on('warning', () => {});
    this.prune();
    process.on('exit', this.onExit);
  }

  write(line: string): void {
    if (this.closed || this.failed) return;
    if (this.inFlight) {
      this.pending += line;
      return;
    }
    this.inFlight = true;
    this.out.write(line, this.written);
  }

  private readonly written = (err?: Error | null): void => {
    if (err) this.fail(err);
    if (this.pending !== '' && !this.failed) {
      const chunk = this.pending;
      this.pending = '';
      this.out.write(chunk, this.written);
      return;
    }
    this.pending = '';
    this.inFlight = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  };

  flush(): Promise<void> {
    return this.inFlight ? new Promise((r) => this.waiters.push(r)) : Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    process.off('exit', this.onExit);
    if (!this.out.destroyed) {
      this.out.end();
      await finished(this.out).catch(() => {});
    }
    await this.pruning;
  }

  /** Keeps the newest maxBackups backups and none older than maxAgeDays (0 disables either limit). */
  private prune(): void {
    this.pruning = this.pruning.then(() => this.pruneNow()).catch((err) => reportFailure('file pruning', err));
  }

  private async pruneNow(): Promise<void> {
    if (this.maxBackups <= 0 && this.maxAgeDays <= 0) return;
    const re = new RegExp(`^${escapeRe(this.stem)}-(${STAMP})(?:\\.(\\d+))?${escapeRe(this.ext)}(?:\\.gz)?$`);
    const backups: Array<{ name: string; stamp: string; n: number }> = [];
    for (const name of await readdir(this.dir)) {
      const m = re.exec(name);
      if (m) backups.push({ name, stamp: m[1] as string, n: Number(m[2] ?? 1) });
    }
    backups.sort((a, b) => (a.stamp === b.stamp ? b.n - a.n : a.stamp < b.stamp ? 1 : -1));
    const cutoff = Date.now() - this.maxAgeDays * DAY_MS;
    const doomed = backups.filter(
      (b, i) => (this.maxBackups > 0 && i >= this.maxBackups) || (this.maxAgeDays > 0 && stampTime(b.stamp) < cutoff),
    );
    await Promise.all(doomed.map((b) => unlink(join(this.dir, b.name)).catch(() => {})));
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    reportFailure('file', err);
  }

  /** On process.exit() without close(): append what never reached the stream, synchronously (best effort). */
  private writePendingSync(): void {
    if (this.pending === '') return;
    try {
      appendFileSync(this.file, this.pending);
    } catch {
      // Exiting anyway.
    }
    this.pending = '';
  }
}

function stampTime(stamp: string): number {
  // 2006-01-02T15-04-05.000 back to 2006-01-02T15:04:05.000Z
  return Date.parse(`${stamp.slice(0, 13)}:${stamp.slice(14, 16)}:${stamp.slice(17)}Z`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
