// Where blob transactions live while pooled (--blobpool.datadir): one file per transaction holding its network
// form (transaction and sidecar), named by hash, so blob transactions and their sidecars survive a restart as in
// geth's blob pool. Without a directory the store is memory-only. The pool enforces --blobpool.datacap over
// `size`.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export class BlobStore {
  readonly #memory = new Map<string, Uint8Array>();
  #size = 0;

  constructor(readonly dir: string | undefined) {
    if (dir) mkdirSync(dir, { recursive: true });
  }

  /** Bytes stored. */
  get size(): number {
    return this.#size;
  }

  put(hash: Uint8Array, network: Uint8Array): void {
    const key = hex(hash);
    if (this.#memory.has(key)) return;
    if (this.dir) writeFileSync(join(this.dir, `${key}.tx`), network);
    this.#memory.set(key, network);
    this.#size += network.length;
  }

  get(hash: Uint8Array): Uint8Array | undefined {
    return this.#memory.get(hex(hash));
  }

  delete(hash: Uint8Array): void {
    const key = hex(hash);
    const v = this.#memory.get(key);
    if (!v) return;
    this.#memory.delete(key);
    this.#size -= v.length;
    if (this.dir) rmSync(join(this.dir, `${key}.tx`), { force: true });
  }

  /** Network forms of the transactions a previous run left on disk (then forgotten: the pool re-adds them). */
  takeStored(): Uint8Array[] {
    if (!this.dir || !existsSync(this.dir)) return [];
    const out: Uint8Array[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.tx')) continue;
      const path = join(this.dir, name);
      out.push(new Uint8Array(readFileSync(path)));
      rmSync(path, { force: true });
    }
    return out;
  }
}
