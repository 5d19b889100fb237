// Ledger's HID transport and the Ethereum app's get-address command, as geth's usbwallet ledger driver speaks them.
// An APDU (CLA 0xe0, INS, P1, P2, Lc, data) is prefixed with its 2-byte big-endian length and cut into 64-byte HID
// reports: each starts with the channel 0x0101, the command tag 0x05 and a 2-byte sequence number, the rest is
// data (zero-padded). The reply comes back framed the same way, its first report carrying the reply's length; the
// reply ends with a 2-byte status word (0x9000 = success).
import { TernError } from '../../../common/errors.js';

export const LEDGER_REPORT_SIZE = 64;
const HEADER = [0x01, 0x01, 0x05] as const;

/** The Ethereum app's opcode for "return the address of a derivation path" (geth's ledgerOpRetrieveAddress). */
export const LEDGER_OP_RETRIEVE_ADDRESS = 0x02;

function bad(message: string): TernError {
  return new TernError('LEDGER_REPLY', message);
}

/** The HID reports that carry one APDU to the device. */
export function ledgerFrames(ins: number, p1: number, p2: number, data: Uint8Array): Uint8Array[] {
  if (data.length > 255) throw new TernError('LEDGER_REQUEST', 'APDU data longer than 255 bytes');
  const apdu = new Uint8Array(2 + 5 + data.length);
  new DataView(apdu.buffer).setUint16(0, 5 + data.length);
  apdu.set([0xe0, ins, p1, p2, data.length], 2);
  apdu.set(data, 7);
  const frames: Uint8Array[] = [];
  for (let seq = 0, at = 0; at < apdu.length; seq++) {
    const frame = new Uint8Array(LEDGER_REPORT_SIZE);
    frame.set(HEADER);
    new DataView(frame.buffer).setUint16(3, seq);
    const piece = apdu.subarray(at, at + LEDGER_REPORT_SIZE - 5);
    frame.set(piece, 5);
    at += piece.length;
    frames.push(frame);
  }
  return frames;
}

/**
 * Reassembles a reply from the device's reports (read one at a time through `next`); returns the payload without
 * its status word, or throws with the status when it is not 0x9000.
 */
export async function ledgerReadReply(next: () => Promise<Uint8Array>): Promise<Uint8Array> {
  let reply: Uint8Array | undefined;
  let filled = 0;
  for (let seq = 0; reply === undefined || filled < reply.length; seq++) {
    const frame = await next();
    if (frame.length < 7 || frame[0] !== HEADER[0] || frame[1] !== HEADER[1] || frame[2] !== HEADER[2])
      throw bad('invalid reply header');
    if (new DataView(frame.buffer, frame.byteOffset).getUint16(3) !== seq)
      throw bad(`reply report out of sequence (want ${seq})`);
    let payload: Uint8Array;
    if (reply === undefined) {
      const length = new DataView(frame.buffer, frame.byteOffset).getUint16(5);
      if (length < 2) throw bad('reply shorter than its status word');
      reply = new Uint8Array(length);
      payload = frame.subarray(7);
    } else payload = frame.subarray(5);
    const take = payload.subarray(0, reply.length - filled);
    reply.set(take, filled);
    filled += take.length;
  }
  const sw = ((reply[reply.length - 2] as number) << 8) | (reply[reply.length - 1] as number);
  if (sw !== 0x9000) throw bad(`device answered status 0x${sw.toString(16).padStart(4, '0')}`);
  return reply.subarray(0, reply.length - 2);
}

/** A BIP-32 path such as m/44'/60'/0'/0/0 as the app takes it: component count, then each uint32 big-endian. */
export function encodeDerivationPath(path: readonly number[]): Uint8Array {
  const out = new Uint8Array(1 + 4 * path.length);
  out[0] = path.length;
  const v = new DataView(out.buffer);
  path.forEach((c, i) => {
    v.setUint32(1 + 4 * i, c >>> 0);
  });
  return out;
}

/** geth's DefaultBaseDerivationPath m/44'/60'/0'/0 with account index 0. */
export const DEFAULT_LEDGER_PATH: readonly number[] = [0x8000002c, 0x8000003c, 0x80000000, 0, 0];

/** The get-address reply: [pubkey length][pubkey][address length][address as ASCII hex]. */
export function parseAddressReply(reply: Uint8Array): { publicKey: Uint8Array; address: string } {
  const pkLen = reply[0];
  if (pkLen === undefined || reply.length < 1 + pkLen) throw bad('reply too short for its public key');
  const publicKey = reply.subarray(1, 1 + pkLen);
  const rest = reply.subarray(1 + pkLen);
  const addrLen = rest[0];
  if (addrLen === undefined || rest.length < 1 + addrLen || addrLen !== 40)
    throw bad('reply too short for its address');
  const hex = Buffer.from(rest.subarray(1, 41)).toString('latin1');
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) throw bad('address in reply is not hex');
  return { publicKey, address: `0x${hex.toLowerCase()}` };
}

/** An open HID device: write one report, read one report. */
export interface HidChannel {
  write(report: Uint8Array): Promise<void>;
  read(): Promise<Uint8Array>;
}

/** Asks the Ethereum app for the address at `path` without confirmation on the device (geth's ledgerDerive). */
export async function ledgerGetAddress(
  dev: HidChannel,
  path: readonly number[] = DEFAULT_LEDGER_PATH,
): Promise<string> {
  for (const f of ledgerFrames(LEDGER_OP_RETRIEVE_ADDRESS, 0x00, 0x00, encodeDerivationPath(path))) await dev.write(f);
  return parseAddressReply(await ledgerReadReply(() => dev.read())).address;
}
