// An in-memory node store, for tests, benchmarks and the --dev chain's throwaway state. Keys are the hash bytes
// as a latin1 string: one char per byte, cheaper to build than hex.
import type { NodeReader, PackedNodes } from './interface.js';
import { eachNode } from './packedNodes.js';

export class MemoryNodeStore implements NodeReader {
  private readonly nodes = new Map<string, Uint8Array>();

  get(hash: Uint8Array): Uint8Array | undefined {
    return this.nodes.get(Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('latin1'));
  }

  put(hash: Uint8Array, rlp: Uint8Array): void {
    this.nodes.set(Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('latin1'), rlp);
  }

  putAll(nodes: PackedNodes): void {
    for (const [hash, rlp] of eachNode(nodes)) this.put(hash, rlp);
  }

  get size(): number {
    return this.nodes.size;
  }
}
