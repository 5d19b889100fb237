// Startup discovery for --usb and --pcscdpath: one line for each, the node never stopped by a missing device,
// library or daemon; devices matched by geth's Ledger and Trezor identifiers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../../../../src/main/common/logger/index.js';
import { discoverHardwareWallets, matchWallets } from '../../../../../../src/main/exec/accounts/hardware/discovery.js';
import { fakePcscd, readersState } from '../../../../../helpers/pcscd.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-hw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recordingLogger(): { logger: Logger; lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  const at = (lvl: string) => (msg: string) => lines.push([lvl, msg]);
  const logger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger;
  return { logger, lines };
}

const NANO_S_PLUS = { vendorId: 0x2c97, productId: 0x5011, usagePage: 0xffa0, interface: 0, product: 'Nano S Plus' };
const MOUSE = { vendorId: 0x046d, productId: 0xc077, usagePage: 0x0001, interface: 0, product: 'USB Optical Mouse' };
const TREZOR_ONE = { vendorId: 0x534c, productId: 0x0001, usagePage: 0xff00, interface: 0, product: 'TREZOR' };

describe('hardware wallet discovery', () => {
  it('matches Ledger (model and interface in the product id) and Trezor, not other devices', () => {
    expect(matchWallets([NANO_S_PLUS, MOUSE, TREZOR_ONE]).map((d) => d.scheme)).toEqual(['ledger', 'trezor']);
    expect(matchWallets([{ ...NANO_S_PLUS, vendorId: 0x2c98 }])).toEqual([]);
  });

  it('says in one line that no USB wallet is present, and lists the ones that are', async () => {
    let r = recordingLogger();
    expect(
      await discoverHardwareWallets(
        { usb: true, pcscdPath: undefined },
        { logger: r.logger, listHid: async () => [MOUSE] },
      ),
    ).toEqual({ usb: [] });
    expect(r.lines).toEqual([['info', 'USB hardware wallets: no device found (Ledger, Trezor)']]);
    r = recordingLogger();
    const found = await discoverHardwareWallets(
      { usb: true, pcscdPath: undefined },
      { logger: r.logger, listHid: async () => [NANO_S_PLUS] },
    );
    expect(found.usb).toEqual(['ledger:Nano S Plus']);
    expect(r.lines).toEqual([['info', 'USB hardware wallets found']]);
  });

  it('runs on when the HID library cannot load, and does not look without --usb', async () => {
    const r = recordingLogger();
    const fail = async () => {
      throw new Error('libusb-1.0.so.0: cannot open shared object file');
    };
    await discoverHardwareWallets({ usb: true, pcscdPath: undefined }, { logger: r.logger, listHid: fail });
    expect(r.lines).toEqual([['warn', 'Failed to start USB hardware wallet hub, disabling']]);
    let called = false;
    await discoverHardwareWallets(
      { usb: false, pcscdPath: undefined },
      {
        logger: r.logger,
        listHid: async () => {
          called = true;
          return [];
        },
      },
    );
    expect(called).toBe(false);
  });

  it('handles the pcscd socket as geth: absent, not a socket, no readers, readers', async () => {
    let r = recordingLogger();
    await discoverHardwareWallets({ usb: false, pcscdPath: join(dir, 'missing.comm') }, { logger: r.logger });
    expect(r.lines).toEqual([['info', 'Smartcard socket not found, disabling']]);
    const file = join(dir, 'file.comm');
    writeFileSync(file, '');
    r = recordingLogger();
    await discoverHardwareWallets({ usb: false, pcscdPath: file }, { logger: r.logger });
    expect(r.lines).toEqual([['error', 'Invalid smartcard daemon path']]);

    for (const [name, readers, line] of [
      ['none.comm', [], 'Smart card daemon: no reader connected'],
      ['one.comm', [{ name: 'Yubico YubiKey CCID', state: 0x34 }], 'Smart card readers'],
    ] as const) {
      const path = join(dir, name);
      const { server } = await fakePcscd(path, (cmd, payload) => {
        const b = Buffer.alloc(12);
        if (cmd === 0x11) {
          b.writeUInt32LE(4, 0);
          b.writeUInt32LE(4, 4);
        } else if (cmd === 0x01) b.writeUInt32LE(9, 4);
        else if (cmd === 0x12) return readersState([...readers]);
        else if (cmd === 0x02) return Buffer.concat([payload.subarray(0, 4), Buffer.alloc(4)]);
        return b;
      });
      try {
        r = recordingLogger();
        const found = await discoverHardwareWallets({ usb: false, pcscdPath: path }, { logger: r.logger });
        expect(found.readers?.map((x) => x.name)).toEqual(readers.map((x) => x.name));
        expect(r.lines).toEqual([['info', line]]);
      } finally {
        server.close();
      }
    }
  });
});
