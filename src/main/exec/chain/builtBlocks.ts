// The blocks a BlockExecutor built and may be asked to store (engine_newPayload of its own getPayload answer):
// kept by hash, the most recent few, so that storing one needs no second execution.
import { toHex as hex } from '../../primitives/bytes.js';
import type { BuiltBlock } from './builder.js';

/** Built blocks kept: the Engine API keeps as many payloads for getPayload (geth keeps 10). */
export const MAX_BUILT_BLOCKS = 10;

export class BuiltBlocks {
  /** By hash, oldest first. */
  readonly #built = new Map<string, BuiltBlock>();

  keep(built: BuiltBlock): void {
    const key = hex(built.hash);
    this.#built.delete(key);
    if (this.#built.size >= MAX_BUILT_BLOCKS) this.#built.delete(this.#built.keys().next().value as string);
    this.#built.set(key, built);
  }

  get(hash: Uint8Array): BuiltBlock | undefined {
    return this.#built.get(hex(hash));
  }
}
