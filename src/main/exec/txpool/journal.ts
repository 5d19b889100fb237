// The local-transaction journal (--txpool.journal), geth's format: a stream of RLP-encoded transactions (a legacy
// transaction as its list, a typed one as a byte string holding its envelope). New locals are appended as they
// arrive; rotate() rewrites the file from what the pool holds (every --txpool.rejournal and at shutdown) so it
// does not grow without bound. A truncated tail (a crash mid-append) is dropped on load.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { asBytes, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { rlpItemLength } from '../../primitives/rlpStream.js';

/** One journal entry of a transaction's consensus (or network) encoding. */
export function journalEntry(raw: Uint8Array): Uint8Array {
  return (raw[0] as number) >= 0xc0 ? raw : rlpEncode(raw);
}

export class TxJournal {
  constructor(readonly path: string) {}

  /** Transactions in the file, in order; undecodable or truncated entries end the read. */
  load(): Uint8Array[] {
    if (!existsSync(this.path)) return [];
    const data = new Uint8Array(readFileSync(this.path));
    const out: Uint8Array[] = [];
    let offset = 0;
    while (offset < data.length) {
      let len: number;
      try {
        len = rlpItemLength(data, offset);
      } catch {
        break;
      }
      if (offset + len > data.length) break;
      const item = data.subarray(offset, offset + len);
      offset += len;
      if ((item[0] as number) >= 0xc0) {
        out.push(item.slice());
        continue;
      }
      try {
        out.push(asBytes(rlpDecode(item), 'journal entry').slice());
      } catch {
        break;
      }
    }
    return out;
  }

  append(raw: Uint8Array): void {
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, journalEntry(raw));
  }

  /** Replaces the file with exactly these transactions (write to a temporary file, then rename). */
  rotate(raws: readonly Uint8Array[]): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.new`;
    writeFileSync(tmp, Buffer.concat(raws.map(journalEntry)));
    renameSync(tmp, this.path);
  }
}
