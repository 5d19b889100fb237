// 32-byte secrets kept in hex files: the engine JWT secret shared by tern-node and tern-exec, and the P2P
// identity key. Reading accepts optional 0x and surrounding whitespace; a file of the wrong length or with
// non-hex characters is an error that names the file. New files are written with mode 0600.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { UsageError } from './errors.js';

export function parseHex32(text: string, path: string, what: string): Uint8Array {
  const body = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]*$/.test(body)) {
    throw new UsageError(`${what} file ${path} is not hex: expected 64 hex digits (32 bytes), optionally with 0x`);
  }
  if (body.length !== 64) {
    throw new UsageError(
      `${what} file ${path} holds ${body.length / 2} bytes: expected 64 hex digits (32 bytes), optionally with 0x`,
    );
  }
  return Uint8Array.from(Buffer.from(body, 'hex'));
}

/** Reads a 32-byte hex secret; returns undefined when the file does not exist. Other read errors throw. */
export function readHex32File(path: string, what: string): Uint8Array | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${what} file ${path}: ${code ?? String(err)}`);
  }
  return parseHex32(text, path, what);
}

/** Writes a new random 32-byte secret as 0x-hex, mode 0600, refusing to overwrite an existing file. */
export function writeNewHex32File(
  path: string,
  what: string,
  generate: () => Uint8Array = () => randomBytes(32),
): Uint8Array {
  const secret = Uint8Array.from(generate());
  try {
    writeFileSync(path, `0x${Buffer.from(secret).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw new UsageError(
      `cannot write new ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  return secret;
}

/** Reads the secret, or creates the file with a new one when it does not exist. */
export function obtainHex32File(
  path: string,
  what: string,
  generate?: () => Uint8Array,
): { secret: Uint8Array; created: boolean } {
  const existing = readHex32File(path, what);
  if (existing) return { secret: existing, created: false };
  return { secret: writeNewHex32File(path, what, generate), created: true };
}
