import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DbErrorCode } from '../../../../../src/main/common/db/interface.js';
import { ANCIENT_TABLES, type AncientBlock, Freezer } from '../../../../../src/main/exec/db/freezer.js';
import { expectCode } from '../../../../helpers/expectCode.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tern-freezer-'));
  dirs.push(d);
  return join(d, 'ancient', 'chain');
}

/** Block n: distinct, variable-length items (block 3's receipts are empty). */
function block(n: number): AncientBlock {
  const item = (tag: number, len: number) => Uint8Array.from({ length: len }, (_, i) => (n * 7 + tag * 13 + i) & 0xff);
  return {
    hashes: item(1, 32),
    headers: item(2, 500 + n),
    bodies: item(3, 10 + ((n * 37) % 300)),
    receipts: n === 3 ? new Uint8Array(0) : item(4, 1 + n * 3),
  };
}

function blocks(from: number, to: number): AncientBlock[] {
  return Array.from({ length: to - from }, (_, i) => block(from + i));
}

function expectBlocks(f: Freezer, to: number): void {
  expect(f.ancients()).toBe(to);
  for (let n = 0; n < to; n++) {
    const want = block(n);
    for (const t of ANCIENT_TABLES) expect(f.ancient(t, n), `${t} ${n}`).toEqual(want[t]);
  }
  for (const t of ANCIENT_TABLES) expect(f.ancient(t, to)).toBeUndefined();
}

describe('Freezer', () => {
  it('appends blocks and reads them by number, across reopen', async () => {
    const dir = tempDir();
    const f = new Freezer({ dir });
    expect(f.ancients()).toBe(0);
    expect(f.ancient('headers', 0)).toBeUndefined();
    await f.append(0, blocks(0, 5));
    await f.append(5, blocks(5, 12));
    expectBlocks(f, 12);
    expect(f.ancient('headers', -1)).toBeUndefined();
    expect(f.ancient('headers', 1.5)).toBeUndefined();
    await f.close();
    for (const t of ANCIENT_TABLES) {
      expect(existsSync(join(dir, `${t}.dat`))).toBe(true);
      expect(statSync(join(dir, `${t}.idx`)).size).toBe(12 * 8);
    }
    const again = new Freezer({ dir });
    expectBlocks(again, 12);
    await again.append(12, blocks(12, 13));
    expectBlocks(again, 13);
    await again.close();
  });

  it('refuses appends that do not continue the store, and incomplete blocks', async () => {
    const f = new Freezer({ dir: tempDir() });
    await f.append(0, blocks(0, 2));
    await expectCode(f.append(3, blocks(3, 4)), DbErrorCode.ancientMismatch);
    await expectCode(f.append(1, blocks(1, 2)), DbErrorCode.ancientMismatch);
    const partial = { hashes: new Uint8Array(32), headers: new Uint8Array(1) } as unknown as AncientBlock;
    await expectCode(f.append(2, [partial]), DbErrorCode.invalidArgument);
    expectBlocks(f, 2);
    await f.close();
    await expectCode(() => f.ancients(), DbErrorCode.closed);
  });

  it('serialises concurrent appends in call order', async () => {
    const f = new Freezer({ dir: tempDir() });
    await Promise.all([f.append(0, blocks(0, 3)), f.append(3, blocks(3, 6)), f.append(6, blocks(6, 9))]);
    expectBlocks(f, 9);
    await f.close();
  });

  describe('repair on open (torn appends)', () => {
    async function filled(n: number): Promise<string> {
      const dir = tempDir();
      const f = new Freezer({ dir });
      await f.append(0, blocks(0, n));
      await f.close();
      return dir;
    }

    it('cuts data written past the last index entry (the crash hit before the index was written)', async () => {
      const dir = await filled(6);
      const size = statSync(join(dir, 'bodies.dat')).size;
      appendFileSync(join(dir, 'bodies.dat'), new Uint8Array(777).fill(0xee));
      appendFileSync(join(dir, 'headers.dat'), new Uint8Array(5).fill(0xee));
      const f = new Freezer({ dir });
      expectBlocks(f, 6);
      expect(statSync(join(dir, 'bodies.dat')).size).toBe(size);
      // The next append lands where the garbage was, and reads back clean.
      await f.append(6, blocks(6, 8));
      expectBlocks(f, 8);
      await f.close();
      const ro = new Freezer({ dir, readonly: true });
      expectBlocks(ro, 8);
      await ro.close();
    });

    it('drops a partial index entry', async () => {
      const dir = await filled(4);
      appendFileSync(join(dir, 'receipts.idx'), Uint8Array.of(0, 0, 0));
      const f = new Freezer({ dir });
      expectBlocks(f, 4);
      expect(statSync(join(dir, 'receipts.idx')).size).toBe(4 * 8);
      await f.close();
    });

    it('drops index entries whose data never reached the disk', async () => {
      const dir = await filled(5);
      // The last two items' data vanish while their index entries remain.
      const idx = readFileSync(join(dir, 'headers.idx'));
      const endOf3 = Number(new DataView(idx.buffer, idx.byteOffset).getBigUint64(2 * 8));
      truncateSync(join(dir, 'headers.dat'), endOf3 + 10);
      const f = new Freezer({ dir });
      // Every table is cut to the 3 blocks that are whole in all of them.
      expectBlocks(f, 3);
      for (const t of ANCIENT_TABLES) expect(statSync(join(dir, `${t}.idx`)).size).toBe(3 * 8);
      expect(statSync(join(dir, 'headers.dat')).size).toBe(endOf3);
      await f.append(3, blocks(3, 7));
      expectBlocks(f, 7);
      await f.close();
    });

    it('cuts every table to the shortest one', async () => {
      const dir = await filled(5);
      // An append that reached only some tables: hashes and headers got block 5, bodies and receipts did not.
      const other = tempDir();
      const g = new Freezer({ dir: other });
      await g.append(0, blocks(0, 6));
      await g.close();
      for (const t of ['hashes', 'headers']) {
        for (const ext of ['dat', 'idx']) {
          const src = readFileSync(join(other, `${t}.${ext}`));
          truncateSync(join(dir, `${t}.${ext}`), 0);
          appendFileSync(join(dir, `${t}.${ext}`), src);
        }
      }
      const f = new Freezer({ dir });
      expectBlocks(f, 5);
      expect(statSync(join(dir, 'headers.idx')).size).toBe(5 * 8);
      await f.append(5, blocks(5, 6));
      expectBlocks(f, 6);
      await f.close();
    });

    it('read-only opening reports the consistent prefix without touching the files', async () => {
      const dir = await filled(4);
      appendFileSync(join(dir, 'bodies.dat'), new Uint8Array(100));
      appendFileSync(join(dir, 'hashes.idx'), Uint8Array.of(1));
      const before = statSync(join(dir, 'bodies.dat')).size;
      const ro = new Freezer({ dir, readonly: true });
      expectBlocks(ro, 4);
      await expectCode(ro.append(4, blocks(4, 5)), DbErrorCode.readonly);
      await ro.close();
      expect(statSync(join(dir, 'bodies.dat')).size).toBe(before);
    });
  });

  it('truncates its head', async () => {
    const dir = tempDir();
    const f = new Freezer({ dir });
    await f.append(0, blocks(0, 10));
    await f.truncateHead(20);
    expectBlocks(f, 10);
    await f.truncateHead(4);
    expectBlocks(f, 4);
    await f.append(4, blocks(4, 6));
    expectBlocks(f, 6);
    await f.truncateHead(0);
    expectBlocks(f, 0);
    await f.close();
    const ro = new Freezer({ dir, readonly: true });
    expectBlocks(ro, 0);
    await ro.close();
  });

  it('lets a read-only reader follow the writer', async () => {
    const dir = tempDir();
    const reader = new Freezer({ dir, readonly: true });
    expect(reader.ancient('headers', 0)).toBeUndefined();
    const writer = new Freezer({ dir });
    await writer.append(0, blocks(0, 3));
    expect(reader.ancient('headers', 2)).toEqual(block(2).headers);
    expect(reader.ancients()).toBe(3);
    await writer.append(3, blocks(3, 5));
    expect(reader.ancient('receipts', 4)).toEqual(block(4).receipts);
    expectBlocks(reader, 5);
    await writer.close();
    await reader.close();
  });

  it('reads as empty when opened read-only where nothing was frozen', async () => {
    const dir = join(tempDir(), 'nothing');
    const f = new Freezer({ dir, readonly: true });
    expect(f.ancients()).toBe(0);
    expect(f.ancient('headers', 0)).toBeUndefined();
    await f.close();
    expect(existsSync(dir)).toBe(false);
  });
});
