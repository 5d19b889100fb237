// The --dev chain's blob sidecars on disk (<datadir>/dev-blobs), so the beacon endpoints still serve them after a
// restart: a rollup node deriving from blob batches sealed before the restart needs them. One file per block,
// named by number and hash (a reorged-out block's file never matches the chain again), written before the block is
// committed and deleted when the beacon record lets the sidecars go (retention, reorg). Without a --datadir the
// chain lives in memory and so do its sidecars: no store.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TernError } from '../../common/errors.js';
import { type DevBlobSidecar, versionedHash } from './beacon.js';

const BLOB_BYTES = 131_072;
const POINT_BYTES = 48;
const RECORD_BYTES = BLOB_BYTES + 2 * POINT_BYTES;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export class DevSidecarStore {
  constructor(readonly dir: string) {}

  #path(number: bigint, hash: Uint8Array): string {
    return join(this.dir, `${number.toString().padStart(12, '0')}-${hex(hash)}.blobs`);
  }

  /** Writes a block's sidecars (blob ‖ commitment ‖ proof each), atomically. */
  put(number: bigint, hash: Uint8Array, sidecars: readonly DevBlobSidecar[]): void {
    if (sidecars.length === 0) return;
    mkdirSync(this.dir, { recursive: true });
    const out = Buffer.alloc(sidecars.length * RECORD_BYTES);
    sidecars.forEach((s, i) => {
      if (s.blob.length !== BLOB_BYTES || s.commitment.length !== POINT_BYTES || s.proof.length !== POINT_BYTES)
        throw new TernError('DEV_SIDECARS', `sidecar ${i} of block ${number} has the wrong sizes`);
      out.set(s.blob, i * RECORD_BYTES);
      out.set(s.commitment, i * RECORD_BYTES + BLOB_BYTES);
      out.set(s.proof, i * RECORD_BYTES + BLOB_BYTES + POINT_BYTES);
    });
    const path = this.#path(number, hash);
    writeFileSync(`${path}.tmp`, out);
    renameSync(`${path}.tmp`, path);
  }

  /** A block's sidecars, or undefined when none were kept (no blobs, pruned, or written by no one). */
  get(number: bigint, hash: Uint8Array): DevBlobSidecar[] | undefined {
    let data: Buffer;
    try {
      data = readFileSync(this.#path(number, hash));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    if (data.length === 0 || data.length % RECORD_BYTES !== 0)
      throw new TernError('DEV_SIDECARS', `the sidecar file of block ${number} is damaged (${data.length} bytes)`);
    const out: DevBlobSidecar[] = [];
    for (let at = 0; at < data.length; at += RECORD_BYTES) {
      const commitment = new Uint8Array(data.subarray(at + BLOB_BYTES, at + BLOB_BYTES + POINT_BYTES));
      out.push({
        blob: new Uint8Array(data.subarray(at, at + BLOB_BYTES)),
        commitment,
        proof: new Uint8Array(data.subarray(at + BLOB_BYTES + POINT_BYTES, at + RECORD_BYTES)),
        versionedHash: versionedHash(commitment),
      });
    }
    return out;
  }

  delete(number: bigint, hash: Uint8Array): void {
    rmSync(this.#path(number, hash), { force: true });
  }

  /** Deletes the files of blocks `keep` says are no longer wanted (not canonical); returns how many. */
  prune(keep: (number: bigint, hashHex: string) => boolean): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    let dropped = 0;
    for (const name of names) {
      const m = /^(\d+)-([0-9a-f]{64})\.blobs(\.tmp)?$/.exec(name);
      if (m === null) continue;
      if (m[3] === undefined && keep(BigInt(m[1] as string), m[2] as string)) continue;
      rmSync(join(this.dir, name), { force: true });
      dropped++;
    }
    return dropped;
  }
}
