// Splitting an RLP list into the raw encodings of its items without decoding them: responses carrying many
// headers, bodies or receipts are handed on as bytes (the sync side decodes them off this thread), so the
// transport only walks the item headers. Strict: canonical length prefixes, no trailing bytes.
export class RlpShapeError extends Error {}

interface ItemBounds {
  list: boolean;
  /** Start of the payload. */
  start: number;
  /** End of the whole item (exclusive). */
  end: number;
}

function readLength(data: Uint8Array, pos: number, n: number): number {
  if (pos + n > data.length) throw new RlpShapeError('RLP length runs past the input');
  if (data[pos] === 0) throw new RlpShapeError('RLP length has a leading zero');
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (data[pos + i] as number);
  if (len < 56) throw new RlpShapeError('RLP long form used for a short length');
  return len;
}

/** The bounds of the item starting at `pos`. */
export function itemBounds(data: Uint8Array, pos: number): ItemBounds {
  if (pos >= data.length) throw new RlpShapeError('RLP item expected, input ended');
  const b = data[pos] as number;
  let out: ItemBounds;
  if (b < 0x80) out = { list: false, start: pos, end: pos + 1 };
  else if (b <= 0xb7) {
    const len = b - 0x80;
    if (len === 1 && pos + 1 < data.length && (data[pos + 1] as number) < 0x80) {
      throw new RlpShapeError('RLP single byte below 0x80 wrapped in a string header');
    }
    out = { list: false, start: pos + 1, end: pos + 1 + len };
  } else if (b <= 0xbf) {
    const n = b - 0xb7;
    const len = readLength(data, pos + 1, n);
    out = { list: false, start: pos + 1 + n, end: pos + 1 + n + len };
  } else if (b <= 0xf7) out = { list: true, start: pos + 1, end: pos + 1 + (b - 0xc0) };
  else {
    const n = b - 0xf7;
    const len = readLength(data, pos + 1, n);
    out = { list: true, start: pos + 1 + n, end: pos + 1 + n + len };
  }
  if (out.end > data.length) throw new RlpShapeError('RLP item runs past the input');
  return out;
}

/** The raw encodings of the items of the list `data` (which must be exactly one list). */
export function splitList(data: Uint8Array): Uint8Array[] {
  const outer = itemBounds(data, 0);
  if (!outer.list) throw new RlpShapeError('expected an RLP list');
  if (outer.end !== data.length) throw new RlpShapeError('trailing bytes after the RLP list');
  const items: Uint8Array[] = [];
  let pos = outer.start;
  while (pos < outer.end) {
    const item = itemBounds(data, pos);
    if (item.end > outer.end) throw new RlpShapeError('RLP item runs past its list');
    items.push(data.subarray(pos, item.end));
    pos = item.end;
  }
  return items;
}

/** The payload of a string item (throws for a list). */
export function stringPayload(item: Uint8Array): Uint8Array {
  const b = itemBounds(item, 0);
  if (b.list || b.end !== item.length) throw new RlpShapeError('expected an RLP string');
  return item.subarray(b.start, b.end);
}

export function isList(item: Uint8Array): boolean {
  return itemBounds(item, 0).list;
}
