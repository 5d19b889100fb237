// Era1 archives (geth's internal/era format): an e2store file of
//   Version | (CompressedHeader | CompressedBody | CompressedReceipts | TotalDifficulty)* | Accumulator | BlockIndex
// for at most 8192 consecutive blocks. Header, body and receipts are RLP in snappy's framing format; the total
// difficulty is a uint256 little-endian; the accumulator is ./accumulator.ts's root; the block index is
// start-number | offset* | count (uint64 LE each), every offset relative to the start of the BlockIndex entry.
// Receipts are geth's `rlp(types.Receipts)`: a list whose typed receipts are strings (type ‖ rlp) and whose legacy
// receipts are lists.
import { TernError } from '../../common/errors.js';
import { snappyFrameDecode, snappyFrameEncode } from '../../common/snappy.js';
import { computeAccumulator, ERA1_MAX_BLOCKS, type HeaderRecord, uint256FromLE, uint256LE } from './accumulator.js';
import { E2_HEADER_SIZE, E2_VALUE_LIMIT, encodeE2Entry, type ReadAt, readE2Entry, readE2Header } from './e2store.js';

export const Era1Type = {
  version: 0x3265,
  compressedHeader: 0x03,
  compressedBody: 0x04,
  compressedReceipts: 0x05,
  totalDifficulty: 0x06,
  accumulator: 0x07,
  blockIndex: 0x3266,
} as const;

/** geth's era1 file name: `<network>-<epoch, 5 digits>-<first 4 bytes of the accumulator root, hex>.era1`. */
export function era1Filename(network: string, epoch: number, root: Uint8Array): string {
  return `${network}-${String(epoch).padStart(5, '0')}-${Buffer.from(root.subarray(0, 4)).toString('hex')}.era1`;
}

/** One block as an era1 file holds it: raw RLP of header, body (geth's types.Body) and receipts. */
export interface Era1Block {
  number: bigint;
  hash: Uint8Array;
  totalDifficulty: bigint;
  header: Uint8Array;
  body: Uint8Array;
  receipts: Uint8Array;
}

/** Writes one era1 file through `write` (called in file order); finish() writes the accumulator and index. */
export class Era1Builder {
  #written = 0;
  #start: bigint | undefined;
  readonly #offsets: number[] = [];
  readonly #records: HeaderRecord[] = [];

  constructor(private readonly write: (chunk: Uint8Array) => void) {}

  get count(): number {
    return this.#offsets.length;
  }

  #entry(type: number, value: Uint8Array): void {
    const e = encodeE2Entry(type, value);
    this.write(e);
    this.#written += e.length;
  }

  add(b: Era1Block): void {
    if (this.#start === undefined) {
      this.#entry(Era1Type.version, new Uint8Array(0));
      this.#start = b.number;
    }
    if (this.#offsets.length >= ERA1_MAX_BLOCKS)
      throw new TernError('ERA_INVALID', `an era1 file holds at most ${ERA1_MAX_BLOCKS} blocks`);
    if (b.number !== this.#start + BigInt(this.#offsets.length))
      throw new TernError(
        'ERA_INVALID',
        `era1 blocks must be consecutive: got ${b.number} after ${this.#start}+${this.#offsets.length}`,
      );
    this.#offsets.push(this.#written);
    this.#records.push({ hash: b.hash, totalDifficulty: b.totalDifficulty });
    this.#entry(Era1Type.compressedHeader, snappyFrameEncode(b.header));
    this.#entry(Era1Type.compressedBody, snappyFrameEncode(b.body));
    this.#entry(Era1Type.compressedReceipts, snappyFrameEncode(b.receipts));
    this.#entry(Era1Type.totalDifficulty, uint256LE(b.totalDifficulty));
  }

  /** Writes the accumulator and the block index; returns the accumulator root. */
  finish(): Uint8Array {
    if (this.#start === undefined) throw new TernError('ERA_INVALID', 'an era1 file needs at least one block');
    const root = computeAccumulator(this.#records);
    this.#entry(Era1Type.accumulator, root);
    const base = this.#written;
    const count = this.#offsets.length;
    const index = new Uint8Array(16 + count * 8);
    const v = new DataView(index.buffer);
    v.setBigUint64(0, this.#start, true);
    // Offsets point backwards: two's complement of (offset - base), as geth writes uint64(int64 relative).
    for (const [i, off] of this.#offsets.entries()) v.setBigInt64(8 + i * 8, BigInt(off - base), true);
    v.setBigUint64(8 + count * 8, BigInt(count), true);
    this.#entry(Era1Type.blockIndex, index);
    return root;
  }
}

/** Reads an era1 file through `read` (random access); `length` is the file's size. */
export class Era1Reader {
  readonly start: bigint;
  readonly count: number;
  readonly #indexAt: number;

  constructor(
    private readonly read: ReadAt,
    length: number,
  ) {
    if (length < E2_HEADER_SIZE * 2 + 16) throw new TernError('ERA_INVALID', 'file too short to be an era1 archive');
    const tail = read(length - 8, 8);
    const count = new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
    const indexAt = length - 24 - Number(count) * 8;
    if (count === 0n || count > BigInt(ERA1_MAX_BLOCKS) || indexAt < E2_HEADER_SIZE)
      throw new TernError('ERA_INVALID', `era1 block index claims ${count} blocks`);
    const h = readE2Header(read, indexAt);
    if (h.type !== Era1Type.blockIndex || h.length !== 16 + Number(count) * 8)
      throw new TernError('ERA_INVALID', 'era1 file does not end with its block index');
    const first = read(indexAt + E2_HEADER_SIZE, 8);
    this.start = new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
    this.count = Number(count);
    this.#indexAt = indexAt;
    const version = readE2Header(read, 0);
    if (version.type !== Era1Type.version || version.length !== 0)
      throw new TernError('ERA_INVALID', 'era1 file does not start with the version entry');
  }

  get end(): bigint {
    return this.start + BigInt(this.count) - 1n;
  }

  has(n: bigint): boolean {
    return n >= this.start && n <= this.end;
  }

  #blockOffset(n: bigint): number {
    if (!this.has(n))
      throw new TernError('ERA_INVALID', `block ${n} is not in this era1 file (${this.start}..${this.end})`);
    const at = this.#indexAt + E2_HEADER_SIZE + 8 + Number(n - this.start) * 8;
    const b = this.read(at, 8);
    const rel = new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0, true);
    const off = this.#indexAt + Number(rel);
    if (off < E2_HEADER_SIZE || off >= this.#indexAt)
      throw new TernError('ERA_INVALID', `bad era1 offset for block ${n}`);
    return off;
  }

  /** The entries of block n: header, body, receipts (decompressed) and total difficulty. */
  block(n: bigint): Omit<Era1Block, 'hash'> {
    let off = this.#blockOffset(n);
    const next = (type: number, what: string): Uint8Array => {
      const e = readE2Entry(this.read, off);
      if (e.type !== type)
        throw new TernError(
          'ERA_INVALID',
          `block ${n}: expected the ${what} entry, found type 0x${e.type.toString(16)}`,
        );
      off += e.size;
      return e.value;
    };
    const header = snappyFrameDecode(next(Era1Type.compressedHeader, 'header'), E2_VALUE_LIMIT);
    const body = snappyFrameDecode(next(Era1Type.compressedBody, 'body'), E2_VALUE_LIMIT);
    const receipts = snappyFrameDecode(next(Era1Type.compressedReceipts, 'receipts'), E2_VALUE_LIMIT);
    const td = next(Era1Type.totalDifficulty, 'total difficulty');
    if (td.length !== 32) throw new TernError('ERA_INVALID', `block ${n}: total difficulty is ${td.length} bytes`);
    return { number: n, header, body, receipts, totalDifficulty: uint256FromLE(td) };
  }

  /** Only the header RLP of block n. */
  header(n: bigint): Uint8Array {
    const e = readE2Entry(this.read, this.#blockOffset(n));
    if (e.type !== Era1Type.compressedHeader) throw new TernError('ERA_INVALID', `block ${n}: header entry missing`);
    return snappyFrameDecode(e.value, E2_VALUE_LIMIT);
  }

  /** The accumulator root the file records (the entry just before the block index). */
  accumulator(): Uint8Array {
    let off = this.#blockOffset(this.end);
    for (let i = 0; i < 4; i++) off += readE2Entry(this.read, off).size;
    const e = readE2Entry(this.read, off);
    if (e.type !== Era1Type.accumulator || e.value.length !== 32)
      throw new TernError('ERA_INVALID', 'era1 accumulator entry missing');
    return e.value;
  }
}
