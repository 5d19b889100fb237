// --usb and --pcscdpath: hardware-wallet and smart-card discovery at startup, as geth's setAccountManagerBackends
// and setSmartCard do it. With --usb, USB HID devices are listed through node-hid (its prebuilt binding needs
// libusb-1.0 and libudev at run time) and matched against geth's Ledger and Trezor identifiers. The smart-card
// daemon's socket (default /run/pcscd/pcscd.comm) is used when it exists and is a socket: a context is established
// and its readers listed. Either one that cannot start says why in one line and the node runs on without it
// (geth: "Failed to start ... hub, disabling"). Signing with these devices is not offered: accounts come from the
// keystore or --signer.
import { statSync } from 'node:fs';
import type { Logger } from '../../../common/logger/index.js';
import { PcscClient, type PcscReader } from './pcsc.js';

export interface HardwareWalletOptions {
  /** --usb */
  usb: boolean;
  /** --pcscdpath ('' or undefined: smart cards off) */
  pcscdPath: string | undefined;
}

/** What node-hid reports for a device (the fields discovery reads). */
export interface HidDeviceInfo {
  vendorId: number;
  productId: number;
  usagePage?: number | undefined;
  interface?: number | undefined;
  product?: string | undefined;
  path?: string | undefined;
}

interface WalletKind {
  scheme: 'ledger' | 'trezor';
  vendorId: number;
  productIds: readonly number[];
  usagePage: number;
  endpoint: number;
}

/** geth's usbwallet hubs: Ledger (HID, usage page 0xffa0 / interface 0), Trezor over HID and over WebUSB. */
const WALLET_KINDS: readonly WalletKind[] = [
  {
    scheme: 'ledger',
    vendorId: 0x2c97,
    productIds: [
      0x0000, 0x0001, 0x0004, 0x0005, 0x0006, 0x0007, 0x0008, 0x1000, 0x4000, 0x5000, 0x6000, 0x7000, 0x8000,
    ],
    usagePage: 0xffa0,
    endpoint: 0,
  },
  { scheme: 'trezor', vendorId: 0x534c, productIds: [0x0001], usagePage: 0xff00, endpoint: 0 },
  { scheme: 'trezor', vendorId: 0x1209, productIds: [0x53c1], usagePage: 0xffff, endpoint: 0 },
];

/** The hardware wallets among HID devices, by geth's matching (Ledger's product id may carry an interface byte). */
export function matchWallets(devices: readonly HidDeviceInfo[]): Array<HidDeviceInfo & { scheme: string }> {
  const out: Array<HidDeviceInfo & { scheme: string }> = [];
  for (const d of devices) {
    const kind = WALLET_KINDS.find(
      (k) =>
        k.vendorId === d.vendorId &&
        k.productIds.some((id) => d.productId === id || (d.productId & 0xff00) === id) &&
        (d.usagePage === k.usagePage || d.interface === k.endpoint),
    );
    if (kind) out.push({ ...d, scheme: kind.scheme });
  }
  return out;
}

/** node-hid's device list; throws when the binding cannot load (no libusb-1.0, unsupported platform). */
export async function listHidDevices(): Promise<HidDeviceInfo[]> {
  const hid = (await import('node-hid')) as unknown as { devicesAsync(): Promise<HidDeviceInfo[]> };
  return hid.devicesAsync();
}

export interface HardwareWalletDeps {
  logger: Logger;
  listHid?: () => Promise<HidDeviceInfo[]>;
}

/** Discovers what the flags ask for and logs one line for each; never throws. Returns what was found. */
export async function discoverHardwareWallets(
  opts: HardwareWalletOptions,
  { logger, listHid = listHidDevices }: HardwareWalletDeps,
): Promise<{ usb?: string[]; readers?: PcscReader[] }> {
  const found: { usb?: string[]; readers?: PcscReader[] } = {};
  if (opts.usb) {
    try {
      const wallets = matchWallets(await listHid());
      found.usb = wallets.map((w) => `${w.scheme}:${w.product ?? 'device'}`);
      if (wallets.length === 0) logger.info('USB hardware wallets: no device found (Ledger, Trezor)');
      else logger.info('USB hardware wallets found', { devices: found.usb.join(', ') });
    } catch (err) {
      logger.warn('Failed to start USB hardware wallet hub, disabling', { err: reason(err) });
    }
  }
  const path = opts.pcscdPath;
  if (path !== undefined && path !== '') {
    let isSocket: boolean;
    try {
      isSocket = statSync(path).isSocket();
    } catch (err) {
      logger.info('Smartcard socket not found, disabling', { err: reason(err) });
      return found;
    }
    if (!isSocket) {
      logger.error('Invalid smartcard daemon path', { path });
      return found;
    }
    try {
      const client = await PcscClient.open(path);
      try {
        found.readers = await client.listReaders();
      } finally {
        await client.close();
      }
      if (found.readers.length === 0) logger.info('Smart card daemon: no reader connected', { path });
      else
        logger.info('Smart card readers', {
          readers: found.readers.map((r) => `${r.name}${r.cardPresent ? ' (card present)' : ''}`).join(', '),
        });
    } catch (err) {
      logger.warn('Failed to start smart card hub, disabling', { err: reason(err) });
    }
  }
  return found;
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code !== undefined && !(e.message ?? '').includes(e.code)
    ? `${e.code}: ${e.message}`
    : (e?.message ?? String(err));
}
