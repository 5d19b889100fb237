// pcscd's socket protocol against a daemon that answers as pcsc-lite does: the exact request bytes of
// CMD_VERSION, SCARD_ESTABLISH_CONTEXT, CMD_GET_READERS_STATE and SCARD_RELEASE_CONTEXT are recorded and checked,
// and the readers are read from the 16 reader-state slots (184 bytes each) of the answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PcscClient, parseReadersState } from '../../../../../../src/main/exec/accounts/hardware/pcsc.js';
import { fakePcscd, readersState } from '../../../../../helpers/pcscd.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-pcsc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const u32 = (...v: number[]) => {
  const b = Buffer.alloc(4 * v.length);
  for (const [i, x] of v.entries()) b.writeUInt32LE(x >>> 0, 4 * i);
  return b;
};

const READERS = [
  { name: 'Yubico YubiKey OTP+FIDO+CCID 00 00', state: 0x0034 },
  { name: 'Gemalto PC Twin Reader 01 00', state: 0x0012 },
];

describe('pcscd client', () => {
  it('establishes a context and lists the readers with the bytes pcsc-lite expects', async () => {
    const path = join(dir, 'ok.comm');
    const { server, requests } = await fakePcscd(path, (cmd, payload) => {
      if (cmd === 0x11) return u32(4, 4, 0);
      if (cmd === 0x01) return u32(2, 0x1234abcd, 0);
      if (cmd === 0x12) return readersState(READERS);
      if (cmd === 0x02) return Buffer.concat([payload.subarray(0, 4), u32(0)]);
      return undefined;
    });
    try {
      const client = await PcscClient.open(path);
      expect(client.context).toBe(0x1234abcd);
      expect(await client.listReaders()).toEqual([
        { name: 'Yubico YubiKey OTP+FIDO+CCID 00 00', cardPresent: true },
        { name: 'Gemalto PC Twin Reader 01 00', cardPresent: false },
      ]);
      await client.close();
      expect(requests).toEqual([
        '0c00000011000000' + '040000000400000000000000', // CMD_VERSION 4.4
        '0c00000001000000' + '020000000000000000000000', // SCARD_ESTABLISH_CONTEXT, SCARD_SCOPE_SYSTEM
        '0000000012000000', // CMD_GET_READERS_STATE
        '0800000002000000' + 'cdab341200000000', // SCARD_RELEASE_CONTEXT
      ]);
    } finally {
      server.close();
    }
  });

  it('says which protocol a daemon that refuses ours speaks', async () => {
    const path = join(dir, 'old.comm');
    const { server } = await fakePcscd(path, (cmd) => (cmd === 0x11 ? u32(4, 3, 0x80100017) : undefined));
    try {
      await expect(PcscClient.open(path)).rejects.toThrow(/refused protocol 4\.4 \(it speaks 4\.3/);
    } finally {
      server.close();
    }
  });

  it('refuses a readers answer of the wrong size, and skips empty slots', () => {
    expect(() => parseReadersState(new Uint8Array(100))).toThrow(/not 2944/);
    expect(parseReadersState(readersState([]))).toEqual([]);
  });
});
