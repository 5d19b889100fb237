// The ancient store (geth's freezer, minimal): old canonical blocks moved out of the key-value store into append-only
// files, one data file and one index file per table. Item i of every table is block i, so all tables always hold the
// same count. Index entry i is the 8-byte big-endian end offset of item i in the data file (item i spans
// [end(i-1), end(i)), end(-1) = 0); the count is the index size / 8.
//
// Crash safety: an append writes and fdatasyncs every data file first and only then writes and fdatasyncs the index
// entries, so an index entry never points at data that is not on disk. Opening repairs what a crash can leave: a
// partial index entry, index entries past the data, data past the last index entry (a torn append), and tables of
// different lengths (all are cut to the shortest). Blocks are deleted from the key-value store only after their
// append has been synced, so nothing cut here is lost.

import {
  closeSync,
  constants,
  existsSync,
  fdatasync,
  fstatSync,
  fsyncSync,
  ftruncate,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  write,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { DbErrorCode } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';

export const ANCIENT_TABLES = ['hashes', 'headers', 'bodies', 'receipts'] as const;
export type AncientTable = (typeof ANCIENT_TABLES)[number];

/** One frozen block: its canonical hash and the raw RLP of its header, body and receipts. */
export type AncientBlock = Record<AncientTable, Uint8Array>;

export interface AncientReader {
  /** Blocks frozen: every table holds blocks 0 .. ancients()-1. */
  ancients(): number;
  /**
   * Item `number` of a table, or undefined when it is not frozen (yet). Cheaper than asking ancients() first: a
   * read-only store re-reads the table sizes only for numbers beyond what it last saw.
   */
  ancient(table: AncientTable, number: number): Uint8Array | undefined;
}

export interface FreezerOptions {
  /** Directory of the table files; created when missing (unless read-only). */
  dir: string;
  /**
   * Open without repairing or writing (a reader beside the writing process or thread); missing tables read as empty,
   * and blocks appended by the writer later become visible.
   */
  readonly?: boolean;
}

export const freezerDefaults = { readonly: false } as const;

export interface FreezerDeps {
  logger?: Logger;
}

const INDEX_ENTRY = 8;

function writeAll(fd: number, data: Uint8Array, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (done: number): void => {
      if (done === data.length) {
        resolve();
        return;
      }
      write(fd, data, done, data.length - done, position + done, (err, n) => {
        if (err) reject(err);
        else step(done + n);
      });
    };
    step(0);
  });
}

function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

function truncateFd(fd: number, len: number): Promise<void> {
  return new Promise((resolve, reject) => ftruncate(fd, len, (err) => (err ? reject(err) : resolve())));
}

function readExactly(fd: number, len: number, position: number): Uint8Array {
  const buf = new Uint8Array(len);
  let done = 0;
  while (done < len) {
    const n = readSync(fd, buf, done, len - done, position + done);
    if (n === 0) throw new TernError(DbErrorCode.ancientMismatch, 'ancient store file shorter than its index');
    done += n;
  }
  return buf;
}

class FreezerTable {
  readonly name: string;
  readonly #idx: number;
  readonly #dat: number;
  /** Items in the table (after repair). */
  count = 0;
  /** End offset of the last item. */
  dataEnd = 0;

  constructor(dir: string, name: string, readonly: boolean) {
    this.name = name;
    const flags = readonly ? constants.O_RDONLY : constants.O_RDWR | constants.O_CREAT;
    this.#idx = openSync(join(dir, `${name}.idx`), flags, 0o644);
    try {
      this.#dat = openSync(join(dir, `${name}.dat`), flags, 0o644);
    } catch (err) {
      closeSync(this.#idx);
      throw err;
    }
  }

  /** The longest consistent prefix of items: whole index entries whose data is all present. */
  scan(): void {
    const idxSize = fstatSync(this.#idx).size;
    const datSize = fstatSync(this.#dat).size;
    let count = Math.floor(idxSize / INDEX_ENTRY);
    let end = 0;
    while (count > 0) {
      end = this.endOf(count - 1);
      if (end <= datSize) break;
      count--;
      end = 0;
    }
    this.count = count;
    this.dataEnd = end;
  }

  /** Cuts the files to `count` items (count ≤ this.count), dropping anything past them. */
  truncateSync(count: number): boolean {
    const end = count === 0 ? 0 : this.endOf(count - 1);
    let changed = false;
    if (fstatSync(this.#idx).size !== count * INDEX_ENTRY) {
      ftruncateSync(this.#idx, count * INDEX_ENTRY);
      changed = true;
    }
    if (fstatSync(this.#dat).size !== end) {
      ftruncateSync(this.#dat, end);
      changed = true;
    }
    if (changed) {
      fsyncSync(this.#dat);
      fsyncSync(this.#idx);
    }
    this.count = count;
    this.dataEnd = end;
    return changed;
  }

  async truncate(count: number): Promise<void> {
    const end = count === 0 ? 0 : this.endOf(count - 1);
    // Index first: a crash between the two leaves extra data, which opening cuts.
    await truncateFd(this.#idx, count * INDEX_ENTRY);
    await syncData(this.#idx);
    await truncateFd(this.#dat, end);
    await syncData(this.#dat);
    this.count = count;
    this.dataEnd = end;
  }

  endOf(i: number): number {
    const b = readExactly(this.#idx, INDEX_ENTRY, i * INDEX_ENTRY);
    return Number(new DataView(b.buffer).getBigUint64(0));
  }

  read(i: number): Uint8Array {
    let start = 0;
    let end: number;
    if (i === 0) end = this.endOf(0);
    else {
      const b = readExactly(this.#idx, 2 * INDEX_ENTRY, (i - 1) * INDEX_ENTRY);
      const view = new DataView(b.buffer);
      start = Number(view.getBigUint64(0));
      end = Number(view.getBigUint64(INDEX_ENTRY));
    }
    if (end < start) throw new TernError(DbErrorCode.ancientMismatch, `ancient ${this.name} index is corrupt at ${i}`);
    return end === start ? new Uint8Array(0) : readExactly(this.#dat, end - start, start);
  }

  /** Stages items for an append: the data bytes and the index entries that follow the current end. */
  stage(items: readonly Uint8Array[]): { data: Uint8Array; index: Uint8Array; end: number } {
    let total = 0;
    for (const it of items) total += it.length;
    const data = new Uint8Array(total);
    const index = new Uint8Array(items.length * INDEX_ENTRY);
    const view = new DataView(index.buffer);
    let off = 0;
    for (let i = 0; i < items.length; i++) {
      data.set(items[i]!, off);
      off += items[i]!.length;
      view.setBigUint64(i * INDEX_ENTRY, BigInt(this.dataEnd + off));
    }
    return { data, index, end: this.dataEnd + off };
  }

  writeData(data: Uint8Array): Promise<void> {
    return writeAll(this.#dat, data, this.dataEnd);
  }

  writeIndex(index: Uint8Array): Promise<void> {
    return writeAll(this.#idx, index, this.count * INDEX_ENTRY);
  }

  syncData(): Promise<void> {
    return syncData(this.#dat);
  }

  syncIndex(): Promise<void> {
    return syncData(this.#idx);
  }

  close(): void {
    closeSync(this.#idx);
    closeSync(this.#dat);
  }
}

export class Freezer implements AncientReader {
  readonly dir: string;
  readonly readonly: boolean;
  readonly #tables = new Map<AncientTable, FreezerTable>();
  readonly #logger: Logger | undefined;
  #count = 0;
  #closed = false;
  /** Appends and truncations run one at a time, in call order. */
  #queue: Promise<void> = Promise.resolve();

  constructor(opts: FreezerOptions, deps: FreezerDeps = {}) {
    this.dir = opts.dir;
    this.readonly = opts.readonly ?? freezerDefaults.readonly;
    this.#logger = deps.logger;
    if (this.readonly) {
      // Nothing frozen yet (or not in this directory) reads as empty until the writer creates the tables.
      if (this.#tablesExist()) this.#openTables();
    } else {
      const created = !existsSync(opts.dir);
      mkdirSync(opts.dir, { recursive: true });
      if (created) syncDir(dirname(opts.dir));
      this.#openTables();
    }
    this.#logger?.debug('Opened ancient store', { dir: opts.dir, items: this.#count, readonly: this.readonly });
  }

  #tablesExist(): boolean {
    return ANCIENT_TABLES.every(
      (t) => existsSync(join(this.dir, `${t}.idx`)) && existsSync(join(this.dir, `${t}.dat`)),
    );
  }

  /** Opens every table and settles the count on the items whole in all of them (cutting the rest when writable). */
  #openTables(): void {
    try {
      for (const name of ANCIENT_TABLES) {
        const t = new FreezerTable(this.dir, name, this.readonly);
        this.#tables.set(name, t);
        t.scan();
      }
      const count = Math.min(...[...this.#tables.values()].map((t) => t.count));
      if (!this.readonly) {
        syncDir(this.dir);
        for (const t of this.#tables.values()) {
          const before = t.count;
          if (t.truncateSync(count))
            this.#logger?.warn('Repaired ancient table', { table: t.name, items: count, dropped: before - count });
        }
      }
      this.#count = count;
    } catch (err) {
      for (const t of this.#tables.values()) t.close();
      this.#tables.clear();
      throw err;
    }
  }

  /**
   * A read-only store (another thread or process reading while the writer freezes) picks up what was appended since
   * it looked last.
   */
  #refresh(): void {
    if (this.#tables.size === 0) {
      if (this.#tablesExist()) this.#openTables();
      return;
    }
    for (const t of this.#tables.values()) t.scan();
    this.#count = Math.min(...[...this.#tables.values()].map((t) => t.count));
  }

  ancients(): number {
    this.#check();
    if (this.readonly) this.#refresh();
    return this.#count;
  }

  ancient(table: AncientTable, number: number): Uint8Array | undefined {
    this.#check();
    if (!Number.isSafeInteger(number) || number < 0) return undefined;
    if (number >= this.#count && this.readonly) this.#refresh();
    if (number >= this.#count) return undefined;
    const t = this.#tables.get(table);
    if (t === undefined) throw new TernError(DbErrorCode.invalidArgument, `no ancient table named ${table}`);
    return t.read(number);
  }

  /**
   * Appends blocks `first`, `first + 1`, ... (first must equal ancients()); resolves once they are on disk and
   * readable. On failure nothing of the append is counted (and opening cuts any part of it that was written).
   */
  append(first: number, blocks: readonly AncientBlock[]): Promise<void> {
    const run = this.#queue.then(() => this.#append(first, blocks));
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Drops every block from `count` on (a rewind below the ancient limit); a no-op when count ≥ ancients(). */
  truncateHead(count: number): Promise<void> {
    const run = this.#queue.then(async () => {
      this.#check();
      this.#checkWritable();
      if (!Number.isSafeInteger(count) || count < 0)
        throw new TernError(DbErrorCode.invalidArgument, `ancient count must be a non-negative integer: ${count}`);
      if (count >= this.#count) return;
      this.#count = count;
      for (const t of this.#tables.values()) await t.truncate(count);
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Waits for appends in flight, then closes the files. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#queue;
    this.#closed = true;
    for (const t of this.#tables.values()) t.close();
    this.#tables.clear();
  }

  async #append(first: number, blocks: readonly AncientBlock[]): Promise<void> {
    this.#check();
    this.#checkWritable();
    if (first !== this.#count)
      throw new TernError(
        DbErrorCode.ancientMismatch,
        `ancient append must continue at block ${this.#count}, not ${first}`,
      );
    if (blocks.length === 0) return;
    const tables = [...this.#tables.values()];
    const staged = tables.map((t) => {
      const items = blocks.map((b) => {
        const item = b[t.name as AncientTable];
        if (!(item instanceof Uint8Array))
          throw new TernError(DbErrorCode.invalidArgument, `ancient block is missing its ${t.name}`);
        return item;
      });
      return t.stage(items);
    });
    try {
      await Promise.all(tables.map((t, i) => t.writeData(staged[i]!.data)));
      await Promise.all(tables.map((t) => t.syncData()));
      await Promise.all(tables.map((t, i) => t.writeIndex(staged[i]!.index)));
      await Promise.all(tables.map((t) => t.syncIndex()));
    } catch (err) {
      // Put the files back to the last complete item; if that fails too, opening will.
      for (const t of tables) {
        try {
          t.truncateSync(this.#count);
        } catch {}
      }
      throw new TernError(
        DbErrorCode.writeFailed,
        `ancient store append failed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    tables.forEach((t, i) => {
      t.count += blocks.length;
      t.dataEnd = staged[i]!.end;
    });
    this.#count += blocks.length;
  }

  #check(): void {
    if (this.#closed) throw new TernError(DbErrorCode.closed, `ancient store ${this.dir} is closed`);
  }

  #checkWritable(): void {
    if (this.readonly) throw new TernError(DbErrorCode.readonly, `ancient store ${this.dir} is open read-only`);
  }
}

/** Makes the entries of a directory (new files, new subdirectories) durable: fsync of the directory itself. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Not supported on every platform; the data itself is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
