import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptKeystoreJson, verifyMessage, Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addressOfKey,
  decryptKeyFile,
  encryptKey,
  type KeyFile,
  Keystore,
  keyFileName,
  SCRYPT_LIGHT,
} from '../../../../../src/main/exec/accounts/keystore.js';
import { AccountManager, readPasswordFile } from '../../../../../src/main/exec/accounts/manager.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'tern-keystore-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The Web3 Secret Storage wiki vectors, as go-ethereum's accounts/keystore/testdata/v3_test_vector.json has them.
const WIKI_PRIV = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const wiki = (crypto: KeyFile['crypto']): KeyFile => ({
  address: '',
  crypto,
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
});

describe('v3 key files', () => {
  it('decrypts the scrypt wiki vector', () => {
    const f = wiki({
      cipher: 'aes-128-ctr',
      cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
      ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
      kdf: 'scrypt',
      kdfparams: {
        dklen: 32,
        n: 262144,
        r: 1,
        p: 8,
        salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
      },
      mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
    });
    expect(hex(decryptKeyFile(f, 'testpassword'))).toBe(WIKI_PRIV);
    expect(() => decryptKeyFile(f, 'wrong')).toThrow(/could not decrypt key with given password/);
  });

  it('decrypts the pbkdf2 wiki vector', () => {
    const f = wiki({
      cipher: 'aes-128-ctr',
      cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
      ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
      kdf: 'pbkdf2',
      kdfparams: {
        c: 262144,
        dklen: 32,
        prf: 'hmac-sha256',
        salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
      },
      mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
    });
    expect(hex(decryptKeyFile(f, 'testpassword'))).toBe(WIKI_PRIV);
  });

  it('pads the short keys old geth versions wrote (31-byte vector)', () => {
    const f: KeyFile = {
      address: '',
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: 'e0c41130a323adc1446fc82f724bca2f' },
        ciphertext: '9517cd5bdbe69076f9bf5057248c6c050141e970efa36ce53692d5d59a3984',
        kdf: 'scrypt',
        kdfparams: {
          dklen: 32,
          n: 2,
          r: 8,
          p: 1,
          salt: '711f816911c92d649fb4c84b047915679933555030b3552c1212609b38208c63',
        },
        mac: 'd5e116151c6aa71470e67a7d42c9620c75c4d23229847dcc127794f0732b0db5',
      },
      id: 'fecfc4ce-e956-48fd-953b-30f8b52ed66c',
      version: 3,
    };
    expect(hex(decryptKeyFile(f, 'foo'))).toBe('00fa7b3db73dc7dfdf8c5fbdb796d741e4488628c41fc4febd9160a866ba0f35');
  });

  it('writes files ethers reads, and reads files ethers writes', async () => {
    const key = Buffer.from(WIKI_PRIV, 'hex');
    const ours = encryptKey(key, 'pw', true);
    expect(ours.crypto.kdfparams).toMatchObject({ n: SCRYPT_LIGHT.n, p: SCRYPT_LIGHT.p, r: 8, dklen: 32 });
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(ours), 'pw');
    expect(wallet.privateKey).toBe(`0x${WIKI_PRIV}`);
    expect(wallet.address.toLowerCase()).toBe(`0x${ours.address}`);
    const w = new Wallet(`0x${WIKI_PRIV}`);
    const theirs = await encryptKeystoreJson({ address: w.address, privateKey: w.privateKey }, 'pw2', {
      scrypt: { N: 1024 },
    });
    expect(hex(decryptKeyFile(JSON.parse(theirs) as KeyFile, 'pw2'))).toBe(WIKI_PRIV);
  });

  it('names files as geth does', () => {
    expect(keyFileName('ab'.repeat(20), new Date('2026-01-02T03:04:05.678Z'))).toBe(
      `UTC--2026-01-02T03-04-05.678000000Z--${'ab'.repeat(20)}`,
    );
  });
});

describe('keystore directory and accounts', () => {
  it('adds, lists and unlocks accounts; files are private', () => {
    const ks = new Keystore(join(work, 'ks1'), true);
    expect(ks.list()).toEqual([]);
    const a = ks.add('one');
    const b = ks.add('two');
    writeFileSync(join(ks.dir, 'README'), 'not a key');
    expect(
      ks
        .list()
        .map((e) => e.address)
        .sort(),
    ).toEqual([a.address, b.address].sort());
    expect(statSync(a.path).mode & 0o777).toBe(0o600);
    expect(`0x${hex(addressOfKey(ks.unlock(a, 'one')))}`).toBe(a.address);
    expect(() => ks.unlock(a, 'two')).toThrow(/could not decrypt/);
    expect(JSON.parse(readFileSync(a.path, 'utf8')).version).toBe(3);
  });

  it('unlocks with --password lines in keystore order and signs as eth_sign does', () => {
    const dir = join(work, 'ks2');
    const ks = new Keystore(dir, true);
    const first = ks.add('alpha');
    const second = ks.add('beta');
    const pw = join(work, 'pw.txt');
    writeFileSync(pw, 'alpha\r\nbeta\n');
    expect(readPasswordFile(pw)).toEqual(['alpha', 'beta']);
    const m = new AccountManager({ keystoreDir: dir, lightKdf: true, passwordFile: pw });
    m.unlockWithPasswords();
    const [x, y] = ks.list();
    expect(m.isUnlocked(x?.address as string) && m.isUnlocked(y?.address as string)).toBe(true);
    expect(m.accounts().sort()).toEqual([first.address, second.address].sort());
    const sig = m.signMessage(first.address, Buffer.from('hello tern'));
    expect(sig[64]).toBeGreaterThanOrEqual(27);
    expect(verifyMessage('hello tern', `0x${hex(sig)}`).toLowerCase()).toBe(first.address);

    const locked = new AccountManager({ keystoreDir: dir, lightKdf: true });
    locked.unlockWithPasswords();
    expect(() => locked.signMessage(first.address, Buffer.from('x'))).toThrow(/authentication needed/);
    expect(() => locked.signMessage(`0x${'11'.repeat(20)}`, Buffer.from('x'))).toThrow(/unknown account/);
  });

  it('reports an unreadable password file clearly', () => {
    expect(() => readPasswordFile(join(work, 'missing.txt'))).toThrow(
      /cannot read password file .*missing\.txt: ENOENT/,
    );
  });
});
