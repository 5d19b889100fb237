// Snappy as devp2p v5 uses it (every message after HELLO is compressed), from `snappyjs`, the implementation
// @ethereumjs/devp2p uses. Loading it here first also bounds decompression for that library: a peer's frame
// claiming a huge uncompressed length is refused before anything is allocated (geth's limit: 16 MiB - 1).
import { createRequire } from 'node:module';

interface Snappy {
  compress(data: Uint8Array): Uint8Array;
  uncompress(data: Uint8Array, maxLength?: number): Uint8Array;
}

/** geth's maxUint24: the largest uncompressed devp2p message. */
export const MAX_UNCOMPRESSED = 0xffffff;

const mod = createRequire(import.meta.url)('snappyjs') as Snappy;
const uncompress = mod.uncompress;
mod.uncompress = (data, maxLength) => uncompress(data, Math.min(maxLength ?? MAX_UNCOMPRESSED, MAX_UNCOMPRESSED));

export const snappy: Snappy = mod;
