// The 2048-bit logs bloom: each log's address and topics set three bits chosen by their keccak-256.
import { keccak256 } from '../../native/keccak.js';

export interface LogLike {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
}

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047;
    const byte = 255 - (bit >> 3);
    bloom[byte] = (bloom[byte] as number) | (1 << (bit & 7));
  }
}

export function logsBloom(logs: readonly LogLike[], into: Uint8Array = new Uint8Array(256)): Uint8Array {
  for (const log of logs) {
    addToBloom(into, log.address);
    for (const t of log.topics) addToBloom(into, t);
  }
  return into;
}

export function orBloom(target: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < 256; i++) target[i] = (target[i] as number) | (other[i] as number);
}
