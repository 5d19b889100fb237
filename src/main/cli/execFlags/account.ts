// tern-exec flags, section 2.4 of the seed: Account management.
import type { FlagSpec } from '../flag.js';
import { ACCOUNT } from './shared.js';

export const ACCOUNT_FLAGS: readonly FlagSpec[] = [
  {
    name: 'keystore',
    kind: 'path',
    defaultNote: 'inside datadir',
    help: 'Keystore directory',
    category: ACCOUNT,
    toml: 'Node.KeyStoreDir',
    implemented: true,
  },
  {
    name: 'lightkdf',
    kind: 'bool',
    default: false,
    help: 'Reduce key-derivation RAM and CPU usage at some cost in KDF strength',
    category: ACCOUNT,
    toml: 'Node.UseLightweightKDF',
    implemented: true,
  },
  {
    name: 'password',
    kind: 'path',
    help: 'Password file for non-interactive password input',
    category: ACCOUNT,
    toml: 'Tern.PasswordFile',
    implemented: true,
  },
  {
    name: 'pcscdpath',
    kind: 'path',
    default: '/run/pcscd/pcscd.comm',
    help: 'Path to the smartcard daemon (pcscd) socket: its readers are listed at startup when the socket exists',
    category: ACCOUNT,
    toml: 'Node.SmartCardDaemonPath',
    implemented: true,
  },
  {
    name: 'signer',
    kind: 'string',
    help: 'External signer (URL or path to an IPC endpoint)',
    category: ACCOUNT,
    toml: 'Node.ExternalSigner',
    implemented: true,
  },
  {
    name: 'usb',
    kind: 'bool',
    default: false,
    help: 'Look for USB hardware wallets (Ledger, Trezor) at startup and say what was found; signing stays with the keystore',
    category: ACCOUNT,
    toml: 'Node.USB',
    implemented: true,
  },
];
