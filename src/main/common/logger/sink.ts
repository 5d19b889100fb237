// Where formatted lines go: a caller's stream, the console, or a file. Console and file writes go through
// pino's sonic-boom destination: buffered, asynchronous (never one blocking write per line), flushed
// synchronously if the process exits before close().
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isatty } from 'node:tty';
import { pino } from 'pino';
import { UsageError } from '../errors.js';

export interface Sink {
  /** Whether lines end up on a terminal ('text' format and default colour depend on it). */
  readonly isTTY: boolean;
  write(line: string): void;
  /** Resolves once every line written so far has been handed to the operating system. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

type SonicBoom = ReturnType<typeof pino.destination>;

/** Lines to a caller's object (tests, embedding); it is not ours to close. */
export class StreamSink implements Sink {
  readonly isTTY: boolean;

  constructor(private readonly stream: { write(line: string): unknown }) {
    this.isTTY = (stream as { isTTY?: unknown }).isTTY === true;
  }

  write(line: string): void {
    try {
      this.stream.write(line);
    } catch (err) {
      reportFailure('stream', err);
    }
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

/** stderr or stdout. After close() lines are still written, synchronously, so late shutdown lines are not lost. */
export function consoleSink(fd: 1 | 2): Sink {
  return new SonicSink(pino.destination({ dest: fd, sync: false, minLength: 1 }), isatty(fd), fd);
}

/** One file, appended to. Opened here, synchronously, so a bad path fails at startup with a clear message. */
export function fileSink(path: string): Sink {
  const fd = openLogFile(path);
  return new SonicSink(pino.destination({ dest: fd, sync: false, minLength: 1 }), false, undefined);
}

/** Creates the file's directory and opens it for appending; throws a UsageError naming the path on failure. */
export function openLogFile(path: string): number {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, 'a');
  } catch (err) {
    throw new UsageError(`cannot open log file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Checks that the file can be created and appended to, without keeping it open. */
export function checkLogFile(path: string): void {
  closeSync(openLogFile(path));
}

class SonicSink implements Sink {
  private closed = false;
  private broken = false;

  /** consoleFd: where lines go after close (undefined for files: they are dropped). */
  constructor(
    private readonly dest: SonicBoom,
    readonly isTTY: boolean,
    private readonly consoleFd: number | undefined,
  ) {
    dest.on('error', (err: unknown) => {
      this.broken = true;
      reportFailure(consoleFd === undefined ? 'file' : 'console', err);
    });
  }

  write(line: string): void {
    if (!this.closed && !this.broken && !destroyed(this.dest)) {
      this.dest.write(line);
    } else if (this.consoleFd !== undefined && !this.broken) {
      try {
        writeSync(this.consoleFd, line);
      } catch {
        // Nowhere left to report it.
      }
    }
  }

  flush(): Promise<void> {
    if (this.closed || this.broken || destroyed(this.dest)) return Promise.resolve();
    // sonic-boom calls back after the buffer drained and an fsync (whose error on a pipe or terminal is moot).
    return new Promise((resolve) => this.dest.flush(() => resolve()));
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.broken || destroyed(this.dest)) return Promise.resolve();
    return new Promise((resolve) => {
      this.dest.once('close', () => resolve());
      this.dest.once('error', () => resolve());
      this.dest.end();
    });
  }
}

function destroyed(dest: SonicBoom): boolean {
  return (dest as unknown as { destroyed?: boolean }).destroyed === true;
}

const reported = new Set<string>();

/** Says once per kind of output, on stderr, that logging failed: the logger cannot log its own failure. */
export function reportFailure(what: string, err: unknown): void {
  if (reported.has(what)) return;
  reported.add(what);
  try {
    writeSync(
      2,
      `tern: writing the log ${what} failed, later lines may be lost: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  } catch {
    // stderr itself is gone.
  }
}
