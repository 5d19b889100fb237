import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { obtainHex32File, readHex32File } from '../../../../src/main/common/secretFile.js';
import { loadOrCreateIdentityKey } from '../../../../src/main/node/p2p/identityKey.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-secret-'));
const HEX = 'a'.repeat(64);

describe('32-byte hex secret files', () => {
  it('reads with or without 0x and surrounding whitespace', () => {
    for (const [i, text] of [HEX, `0x${HEX}`, `  0x${HEX}\n\n`, `\t${HEX.toUpperCase()} `].entries()) {
      const p = join(dir, `ok${i}`);
      writeFileSync(p, text);
      expect(Buffer.from(readHex32File(p, 'JWT secret') as Uint8Array).toString('hex')).toBe(HEX);
    }
  });

  it('rejects the wrong length or non-hex, naming the file', () => {
    const short = join(dir, 'short');
    writeFileSync(short, 'abcd');
    expect(() => readHex32File(short, 'JWT secret')).toThrow(new RegExp(`JWT secret file ${short} holds 2 bytes`));
    const junk = join(dir, 'junk');
    writeFileSync(junk, `0x${'z'.repeat(64)}`);
    expect(() => readHex32File(junk, 'JWT secret')).toThrow(/is not hex/);
  });

  it('creates a missing file with mode 0600 and reuses it afterwards', () => {
    const p = join(dir, 'new-jwt.txt');
    const first = obtainHex32File(p, 'JWT secret');
    expect(first.created).toBe(true);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(readFileSync(p, 'utf8').trim()).toMatch(/^0x[0-9a-f]{64}$/);
    const second = obtainHex32File(p, 'JWT secret');
    expect(second.created).toBe(false);
    expect(second.secret).toEqual(first.secret);
  });

  it('refuses a P2P key that is not a valid secp256k1 scalar', () => {
    const p = join(dir, 'zero-key');
    writeFileSync(p, '0'.repeat(64));
    expect(() => loadOrCreateIdentityKey(p)).toThrow(/valid secp256k1 key/);
    const created = loadOrCreateIdentityKey(join(dir, 'p2p-key'));
    expect(created.created).toBe(true);
    expect(loadOrCreateIdentityKey(join(dir, 'p2p-key')).key).toEqual(created.key);
  });
});
