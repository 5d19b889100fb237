// JSON-RPC over a Unix socket.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { IpcRpcServer } from '../../../../../src/main/common/rpc/ipc.js';
import { recordingLogger, testRegistry } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-ipc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const servers: IpcRpcServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

let n = 0;
async function start() {
  const reg = testRegistry();
  const path = join(dir, `sub${n}`, `t${n++}.ipc`);
  const server = new IpcRpcServer({ path }, { registry: reg.registry, logger: recordingLogger() });
  servers.push(server);
  await server.start();
  return { ...reg, server, path };
}

function open(path: string) {
  const socket = connect(path);
  sockets.push(socket);
  let buffer = '';
  socket.on('data', (c: Buffer) => {
    buffer += c.toString();
  });
  const lines = async (count: number): Promise<string[]> => {
    const deadline = Date.now() + 2000;
    while (buffer.split('\n').length - 1 < count) {
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(buffer)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const all = buffer.split('\n');
    const out = all.slice(0, count);
    buffer = all.slice(count).join('\n');
    return out;
  };
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, lines, ended };
}

describe('IPC transport', () => {
  it('creates the socket mode 0600 and answers newline-terminated JSON', async () => {
    const { path } = await start();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const c = open(path);
    c.socket.write('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(await c.lines(1)).toEqual(['{"jsonrpc":"2.0","id":1,"result":"0x384"}']);
  });

  it('reads values sent back to back without separators, split across writes', async () => {
    const { path } = await start();
    const c = open(path);
    const text = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}[{"jsonrpc":"2.0","id":2,"method":"test_transport"}]';
    c.socket.write(text.slice(0, 30));
    await new Promise((r) => setTimeout(r, 20));
    c.socket.write(text.slice(30));
    const got = await c.lines(2);
    expect(got).toContain('{"jsonrpc":"2.0","id":1,"result":"0x384"}');
    expect(got).toContain('[{"jsonrpc":"2.0","id":2,"result":"ipc"}]');
  });

  it('answers a syntax error with a parse error and closes the connection', async () => {
    const { path } = await start();
    const c = open(path);
    c.socket.write('} oops');
    expect(await c.lines(1)).toEqual(['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}']);
    await c.ended;
  });

  it('serves subscriptions and every namespace, including authenticated ones', async () => {
    const { path, subs } = await start();
    const c = open(path);
    c.socket.write('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    const [answer, early] = await c.lines(2);
    const id = (JSON.parse(answer as string) as { result: string }).result;
    expect(JSON.parse(early as string).params.subscription).toBe(id);
    c.socket.write('{"jsonrpc":"2.0","id":2,"method":"engine_exchangeCapabilities"}');
    expect(await c.lines(1)).toEqual(['{"jsonrpc":"2.0","id":2,"result":["engine_x"]}']);
    c.socket.destroy();
    await c.ended;
    await new Promise((r) => setTimeout(r, 20));
    expect(subs[0]?.signal.aborted).toBe(true);
  });

  it('replaces a stale socket file and removes the socket on stop', async () => {
    const path = join(dir, 'stale.ipc');
    writeFileSync(path, 'left over');
    const { registry } = testRegistry();
    const server = new IpcRpcServer({ path }, { registry, logger: recordingLogger() });
    servers.push(server);
    await server.start();
    const c = open(path);
    c.socket.write('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(await c.lines(1)).toHaveLength(1);
    const t0 = Date.now();
    await server.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    await c.ended;
    expect(existsSync(path)).toBe(false);
  });
});
