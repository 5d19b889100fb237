// Storage behind the local DA server: inputs keyed by their encoded commitment, kept in memory or as one file per
// commitment in a directory (written to a temporary name, then renamed, so a reader never sees half a file).
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DaStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  put(key: Uint8Array, value: Uint8Array): Promise<void>;
  delete(key: Uint8Array): Promise<void>;
}

const keyHex = (key: Uint8Array) => Buffer.from(key).toString('hex');

export class MemoryDaStore implements DaStore {
  readonly #data = new Map<string, Uint8Array>();

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.#data.get(keyHex(key));
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.#data.set(keyHex(key), Uint8Array.from(value));
  }

  async delete(key: Uint8Array): Promise<void> {
    this.#data.delete(keyHex(key));
  }

  get size(): number {
    return this.#data.size;
  }
}

export class FileDaStore implements DaStore {
  #ready: Promise<unknown> | undefined;
  #seq = 0;

  constructor(private readonly dir: string) {}

  #path(key: Uint8Array): string {
    return join(this.dir, keyHex(key));
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.#path(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.#ready ??= mkdir(this.dir, { recursive: true });
    await this.#ready;
    const tmp = `${this.#path(key)}.${process.pid}.${this.#seq++}.tmp`;
    await writeFile(tmp, value);
    await rename(tmp, this.#path(key));
  }

  async delete(key: Uint8Array): Promise<void> {
    await rm(this.#path(key), { force: true });
  }
}
