// The node identity: geth's key precedence and persisted-key layout (<datadir>/tern-exec/nodekey, bare hex, mode
// 0600, the same key on the next start), bad keys refused with the file named; enode URLs; and the node record
// against EIP-778's example (same key, seq 1, ip 127.0.0.1, udp 30303 → the published enr: text).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEnode, parseEnode } from '../../../../../src/main/exec/p2p/enode.js';
import { encodeEnr } from '../../../../../src/main/exec/p2p/enr.js';
import { loadNodeKey } from '../../../../../src/main/exec/p2p/nodeKey.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-nodekey-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291';

describe('loadNodeKey', () => {
  it('creates <datadir>/tern-exec/nodekey (bare hex, 0600) once and reuses it', () => {
    const first = loadNodeKey({ datadir: dir });
    expect(first.source).toBe('generated');
    const path = join(dir, 'tern-exec', 'nodekey');
    expect(first.path).toBe(path);
    expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = loadNodeKey({ datadir: dir });
    expect(again.source).toBe('datadir');
    expect(again.id).toEqual(first.id);
  });

  it('takes --nodekeyhex before --nodekey before the datadir', () => {
    const file = join(dir, 'key.hex');
    writeFileSync(file, `${'22'.repeat(32)}\n`);
    expect(loadNodeKey({ hex: `0x${KEY}`, file, datadir: dir }).source).toBe('nodekeyhex');
    const fromFile = loadNodeKey({ file, datadir: dir });
    expect(fromFile.source).toBe('nodekey');
    expect(Buffer.from(fromFile.privateKey).toString('hex')).toBe('22'.repeat(32));
  });

  it('refuses a key file that is not a key, naming it', () => {
    const zero = join(dir, 'zero.hex');
    writeFileSync(zero, '00'.repeat(32));
    expect(() => loadNodeKey({ file: zero })).toThrow(/zero\.hex is not a valid secp256k1 private key/);
    const short = join(dir, 'short.hex');
    writeFileSync(short, 'abcd');
    expect(() => loadNodeKey({ file: short })).toThrow(/short\.hex/);
    expect(() => loadNodeKey({ file: join(dir, 'missing') })).toThrow(/does not exist/);
  });
});

describe('enode URLs', () => {
  const id = 'ab'.repeat(64);
  it('round-trip, with the discovery port only when it differs', () => {
    expect(formatEnode(Buffer.from(id, 'hex'), '10.0.0.1', 30303, 30303)).toBe(`enode://${id}@10.0.0.1:30303`);
    const url = formatEnode(Buffer.from(id, 'hex'), '10.0.0.1', 30303, 30301);
    expect(url).toBe(`enode://${id}@10.0.0.1:30303?discport=30301`);
    expect(parseEnode(url)).toMatchObject({ host: '10.0.0.1', tcpPort: 30303, udpPort: 30301 });
  });
  it('refuse malformed URLs', () => {
    for (const bad of [`enode://${id}@1.2.3.4`, `enode://abc@1.2.3.4:1`, `enode://${id}@1.2.3.4:99999`]) {
      expect(() => parseEnode(bad)).toThrow();
    }
  });
});

describe('encodeEnr', () => {
  it("matches EIP-778's example record", () => {
    const enr = encodeEnr(Buffer.from(KEY, 'hex'), { seq: 1n, ip: '127.0.0.1', udp: 30303 });
    expect(enr).toBe(
      'enr:-IS4QHCYrYZbAKWCBRlAy5zzaDZXJBGkcnh4MHcBFZntXNFrdvJjX04jRzjzCBOonrkTfj499SZuOh8R33Ls8RRcy5wBgmlkgnY0gmlwhH8AAAGJc2VjcDI1NmsxoQPKY0yuDUmstAHYpMa2_oxVtw0RW_QAdpzBQA8yWM0xOIN1ZHCCdl8',
    );
  });
});
