// A directory of era1 files (--datadir.era, or the directory given to import-history): geth's naming and
// ordering rules (era.ReadDir: `<network>-<epoch>-<root>.era1`, epochs 0, 1, 2 ... without gaps), and block reads
// by number across the files. The node serves history missing from its database from here (db/chain.ts
// falls back to it), so blocks whose bodies and receipts were dropped keep answering from their archives.
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { toHexKey } from '../../primitives/bytes.js';
import { Era1Reader } from './era1.js';

/** geth's params.NetworkNames, by chain id: the network part of an era1 file name ("unknown" otherwise). */
const NETWORK_NAMES: Record<string, string> = {
  '1': 'mainnet',
  '11155111': 'sepolia',
  '17000': 'holesky',
  '560048': 'hoodi',
};

export function eraNetworkName(chainId: bigint): string {
  return NETWORK_NAMES[chainId.toString()] ?? 'unknown';
}

const ERA1_NAME = /^([^-]+)-(\d+)-([0-9a-f]{8})\.era1$/;

/**
 * The era1 files of `network` in `dir`, in epoch order (geth's era.ReadDir): files of other networks are skipped,
 * a malformed epoch or a missing epoch is an error.
 */
export function listEra1Files(dir: string, network: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    throw new TernError('ERA_DIR', `error reading ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const out: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.era1')) continue;
    const parts = name.split('-');
    if (parts.length !== 3 || parts[0] !== network) continue;
    const m = ERA1_NAME.exec(name);
    if (m === null) throw new TernError('ERA_DIR', `malformed era1 filename: ${name}`);
    if (Number(m[2]) !== out.length) throw new TernError('ERA_DIR', `missing epoch ${out.length} in ${dir}`);
    out.push(name);
  }
  return out;
}

/** One open era1 file. */
export class Era1File {
  readonly reader: Era1Reader;
  readonly #fd: number;

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'r');
    try {
      const fd = this.#fd;
      const read = (offset: number, length: number): Uint8Array => {
        const buf = Buffer.allocUnsafe(length);
        const n = readSync(fd, buf, 0, length, offset);
        return new Uint8Array(buf.buffer, buf.byteOffset, n);
      };
      this.reader = new Era1Reader(read, fstatSync(fd).size);
    } catch (err) {
      closeSync(this.#fd);
      throw err instanceof TernError ? new TernError(err.code, `${path}: ${err.message}`) : err;
    }
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Read-only history served from era1 files: what db/chain.ts's HistoryReader asks for. */
export class EraStore {
  readonly #files: Era1File[];
  readonly #hashes = new Map<bigint, Uint8Array>();
  readonly #byHash = new Map<string, bigint>();

  private constructor(
    files: Era1File[],
    private readonly limit: bigint,
  ) {
    this.#files = files;
  }

  /**
   * Opens the era1 files of `network` in `dir`; undefined when there are none (or no such directory). Blocks above
   * `limit` (the database's head when opened) are not served: archives never speak for blocks the chain has not
   * reached.
   */
  static open(dir: string, network: string, limit: bigint): EraStore | undefined {
    let names: string[];
    try {
      names = listEra1Files(dir, network);
    } catch (err) {
      if (err instanceof TernError && /ENOENT/.test(err.message)) return undefined;
      throw err;
    }
    if (names.length === 0) return undefined;
    const files: Era1File[] = [];
    try {
      for (const n of names) files.push(new Era1File(join(dir, n)));
    } catch (err) {
      for (const f of files) f.close();
      throw err;
    }
    return new EraStore(files, limit);
  }

  /** The first and last block numbers held. */
  range(): { first: bigint; last: bigint } {
    const last = (this.#files[this.#files.length - 1] as Era1File).reader.end;
    // bigint operands: Math.min does not take them.
    // biome-ignore lint/complexity/useMathMinMax: bigint
    return { first: (this.#files[0] as Era1File).reader.start, last: last < this.limit ? last : this.limit };
  }

  get fileCount(): number {
    return this.#files.length;
  }

  #fileOf(n: bigint): Era1File | undefined {
    return n > this.limit ? undefined : this.#files.find((f) => f.reader.has(n));
  }

  headerRlp(number: number): Uint8Array | undefined {
    return this.#fileOf(BigInt(number))?.reader.header(BigInt(number));
  }

  bodyRlp(number: number): Uint8Array | undefined {
    return this.#fileOf(BigInt(number))?.reader.block(BigInt(number)).body;
  }

  receiptsRlp(number: number): Uint8Array | undefined {
    return this.#fileOf(BigInt(number))?.reader.block(BigInt(number)).receipts;
  }

  canonicalHash(number: number): Uint8Array | undefined {
    const n = BigInt(number);
    const cached = this.#hashes.get(n);
    if (cached !== undefined) return cached;
    const header = this.headerRlp(number);
    if (header === undefined) return undefined;
    const hash = keccak256(header);
    this.#hashes.set(n, hash);
    this.#byHash.set(toHexKey(hash), n);
    return hash;
  }

  /**
   * The number of a block by hash, for the blocks whose hash this store has computed (canonicalHash). A hash is
   * never looked for across the files: that would hash every archived header on the coordinator thread for any
   * unknown hash asked about. Pruned history keeps its headers in the database (as geth's prune-history does), so
   * the database answers hash lookups and the archives serve bodies and receipts.
   */
  numberOf(hash: Uint8Array): number | undefined {
    const n = this.#byHash.get(toHexKey(hash));
    return n === undefined ? undefined : Number(n);
  }

  close(): void {
    for (const f of this.#files) f.close();
  }
}
