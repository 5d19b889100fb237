// The developer account as geth picks it: the keystore's first account unlocked by --password, a new account
// written to an empty keystore, an in-memory key without a keystore, and a clear error for a locked account.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { addressOfKey, Keystore } from '../../../../../src/main/exec/accounts/keystore.js';
import { developerAccount } from '../../../../../src/main/exec/dev/start.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-dev-account-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** --lightkdf and --password as the account options carry them. */
function settings(values: { lightkdf: boolean; password?: string }): { lightKdf: boolean; passwordFile?: string } {
  return { lightKdf: values.lightkdf, ...(values.password !== undefined ? { passwordFile: values.password } : {}) };
}

describe('developerAccount', () => {
  it('uses an in-memory key without a keystore', () => {
    const a = developerAccount(undefined, settings({ lightkdf: true }), logger);
    expect(hex(addressOfKey(a.key))).toBe(a.address);
    expect(a.manager.accounts()).toEqual([a.address]);
    expect(a.manager.isUnlocked(a.address)).toBe(true);
  });

  it('creates the account in an empty keystore with the password line', () => {
    const ks = join(dir, 'new');
    const pw = join(dir, 'pw-new');
    writeFileSync(pw, 'hunter2\n');
    const a = developerAccount(ks, settings({ lightkdf: true, password: pw }), logger);
    const entries = new Keystore(ks, true).list();
    expect(entries.map((e) => e.address)).toEqual([a.address]);
    expect(new Keystore(ks, true).unlock(entries[0]!, 'hunter2')).toEqual(a.key);
    // A second start picks the same account, unlocked with the same password.
    const again = developerAccount(ks, settings({ lightkdf: true, password: pw }), logger);
    expect(again.address).toBe(a.address);
  });

  it('reopens an account created without --password (empty password)', () => {
    const ks = join(dir, 'empty');
    const a = developerAccount(ks, settings({ lightkdf: true }), logger);
    expect(developerAccount(ks, settings({ lightkdf: true }), logger).address).toBe(a.address);
  });

  it('refuses a locked first account', () => {
    const ks = join(dir, 'locked');
    new Keystore(ks, true).add('right');
    const pw = join(dir, 'pw-wrong');
    writeFileSync(pw, 'wrong\n');
    expect(() => developerAccount(ks, settings({ lightkdf: true, password: pw }), logger)).toThrow(/is locked/);
    expect(() => developerAccount(ks, settings({ lightkdf: true }), logger)).toThrow(/--password/);
  });
});
