// A small LRU keyed by block hash (a Map keeps insertion order: a hit re-inserts). Only verified, non-empty answers
// go in, so a transient bad answer is asked again rather than remembered.
export class LruCache<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();

  constructor(max: number) {
    this.#max = Math.max(0, Math.floor(max));
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    if (this.#max === 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next().value as string;
      this.#map.delete(oldest);
    }
  }
}
