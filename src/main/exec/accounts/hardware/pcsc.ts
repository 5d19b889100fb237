// A client of pcscd's Unix-socket protocol (pcsc-lite's winscard_msg), the part geth's smart-card hub needs to
// find readers: each request is a header {payload size: uint32 LE, command: uint32 LE} then the payload; each
// answer is the payload struct alone. The session starts with CMD_VERSION {major, minor, rv}, then
// SCARD_ESTABLISH_CONTEXT {scope, hContext, rv}; CMD_GET_READERS_STATE answers with the daemon's 16 reader slots
// (name[128], eventCounter, readerState, readerSharing, cardAtr[33] + 3 padding, cardAtrLength, cardProtocol).
import { connect, type Socket } from 'node:net';
import { TernError } from '../../../common/errors.js';

export const PcscCommand = {
  establishContext: 0x01,
  releaseContext: 0x02,
  version: 0x11,
  getReadersState: 0x12,
} as const;

export const PCSC_PROTOCOL = { major: 4, minor: 4 } as const;
export const PCSC_SCOPE_SYSTEM = 0x0002;
const READER_NAME_LENGTH = 128;
export const PCSC_READER_STATE_SIZE = 184;
export const PCSC_MAX_READERS = 16;
/** SCARD_STATE_PRESENT in a reader's state bit field (pcsclite.h). */
const SCARD_PRESENT = 0x0004;

export interface PcscReader {
  name: string;
  cardPresent: boolean;
}

export function pcscRequest(command: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, payload.length, true);
  v.setUint32(4, command, true);
  out.set(payload, 8);
  return out;
}

function u32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => {
    v.setUint32(4 * i, x >>> 0, true);
  });
  return out;
}

/** The reader slots of a CMD_GET_READERS_STATE answer that hold a reader. */
export function parseReadersState(data: Uint8Array): PcscReader[] {
  if (data.length !== PCSC_READER_STATE_SIZE * PCSC_MAX_READERS)
    throw new TernError(
      'PCSC_PROTOCOL',
      `readers state is ${data.length} bytes, not ${PCSC_READER_STATE_SIZE * PCSC_MAX_READERS}`,
    );
  const out: PcscReader[] = [];
  for (let i = 0; i < PCSC_MAX_READERS; i++) {
    const slot = data.subarray(i * PCSC_READER_STATE_SIZE, (i + 1) * PCSC_READER_STATE_SIZE);
    if (slot[0] === 0) continue;
    const nameBytes = slot.subarray(0, READER_NAME_LENGTH);
    const end = nameBytes.indexOf(0);
    const state = new DataView(slot.buffer, slot.byteOffset).getUint32(READER_NAME_LENGTH + 4, true);
    out.push({
      name: Buffer.from(nameBytes.subarray(0, end === -1 ? READER_NAME_LENGTH : end)).toString('utf8'),
      cardPresent: (state & SCARD_PRESENT) !== 0,
    });
  }
  return out;
}

/** One pcscd session: a socket, the negotiated version and the context. */
export class PcscClient {
  #buffer = Buffer.alloc(0);
  #waiting: { size: number; resolve: (b: Uint8Array) => void; reject: (e: Error) => void } | undefined;
  #error: Error | undefined;
  context = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#deliver();
    });
    const fail = (err: Error) => {
      this.#error = err;
      this.#waiting?.reject(err);
      this.#waiting = undefined;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new TernError('PCSC_CLOSED', 'pcscd closed the connection')));
  }

  /** Connects to the daemon's socket, checks the protocol version and establishes a context. */
  static async open(path: string, timeoutMs = 5000): Promise<PcscClient> {
    const socket = connect(path);
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new TernError('PCSC_TIMEOUT', `pcscd at ${path} did not answer`)),
    );
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const client = new PcscClient(socket);
    try {
      const version = await client.#call(PcscCommand.version, u32s(PCSC_PROTOCOL.major, PCSC_PROTOCOL.minor, 0), 12);
      const v = new DataView(version.buffer, version.byteOffset);
      const rv = v.getUint32(8, true);
      if (rv !== 0)
        throw new TernError(
          'PCSC_PROTOCOL',
          `pcscd refused protocol ${PCSC_PROTOCOL.major}.${PCSC_PROTOCOL.minor} (it speaks ${v.getUint32(0, true)}.${v.getUint32(4, true)}, rv 0x${rv.toString(16)})`,
        );
      const ctx = await client.#call(PcscCommand.establishContext, u32s(PCSC_SCOPE_SYSTEM, 0, 0), 12);
      const c = new DataView(ctx.buffer, ctx.byteOffset);
      const crv = c.getUint32(8, true);
      if (crv !== 0) throw new TernError('PCSC_PROTOCOL', `pcscd refused a context: rv 0x${crv.toString(16)}`);
      client.context = c.getUint32(4, true);
      return client;
    } catch (err) {
      socket.destroy();
      throw err;
    }
  }

  #deliver(): void {
    const w = this.#waiting;
    if (w === undefined || this.#buffer.length < w.size) return;
    const out = new Uint8Array(this.#buffer.subarray(0, w.size));
    this.#buffer = this.#buffer.subarray(w.size);
    this.#waiting = undefined;
    w.resolve(out);
  }

  #call(command: number, payload: Uint8Array, answerSize: number): Promise<Uint8Array> {
    if (this.#error) return Promise.reject(this.#error);
    const p = new Promise<Uint8Array>((resolve, reject) => {
      this.#waiting = { size: answerSize, resolve, reject };
    });
    this.socket.write(pcscRequest(command, payload));
    this.#deliver();
    return p;
  }

  async listReaders(): Promise<PcscReader[]> {
    return parseReadersState(
      await this.#call(PcscCommand.getReadersState, new Uint8Array(0), PCSC_READER_STATE_SIZE * PCSC_MAX_READERS),
    );
  }

  async close(): Promise<void> {
    if (this.#error === undefined) {
      try {
        await this.#call(PcscCommand.releaseContext, u32s(this.context, 0), 8);
      } catch {
        // Closing anyway.
      }
    }
    this.socket.destroy();
  }
}
