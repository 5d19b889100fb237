// A pcscd stand-in on a Unix socket: records each request (header + payload, hex) and answers as the test says.
import { createServer, type Server, type Socket } from 'node:net';
import { PCSC_MAX_READERS, PCSC_READER_STATE_SIZE } from '../../src/main/exec/accounts/hardware/pcsc.js';

export function readersState(readers: Array<{ name: string; state: number }>): Buffer {
  const out = Buffer.alloc(PCSC_READER_STATE_SIZE * PCSC_MAX_READERS);
  readers.forEach((r, i) => {
    const at = i * PCSC_READER_STATE_SIZE;
    out.write(r.name, at, 'utf8');
    out.writeUInt32LE(7, at + 128); // event counter
    out.writeUInt32LE(r.state, at + 132);
  });
  return out;
}

/** A pcscd that records each request (header + payload) and answers from `answer`. */
export async function fakePcscd(
  path: string,
  answer: (command: number, payload: Buffer) => Buffer | undefined,
): Promise<{ server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((sock: Socket) => {
    let buf = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 8 && buf.length >= 8 + buf.readUInt32LE(0)) {
        const size = buf.readUInt32LE(0);
        const command = buf.readUInt32LE(4);
        const payload = buf.subarray(8, 8 + size);
        requests.push(buf.subarray(0, 8 + size).toString('hex'));
        buf = buf.subarray(8 + size);
        const a = answer(command, payload);
        if (a) sock.write(a);
      }
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { server, requests };
}
