// The admin namespace over HTTP: absent from the server unless registered (--rpc.enable-admin), the sequencer
// methods against the real Sequencer on the in-memory engine, replica answers, log level, unsafe payloads, the
// conductor methods, and --rpc.admin-state persistence across a "restart".
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger, type LogLevel } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import type { HttpRpcServer } from '../../../../../src/main/common/rpc/http.js';
import { createNodeRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { envelopeJson } from '../../../../../src/main/node/conductor/client.js';
import { disabledConductor, type PayloadEnvelopeLike } from '../../../../../src/main/node/conductor/interface.js';
import { type AdminApiDeps, type AdminSequencer, registerAdminApi } from '../../../../../src/main/node/rpc/admin.js';
import { AdminStateFile, initiallyStopped } from '../../../../../src/main/node/sequencer/adminState.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const HEAD = `0x${'ab'.repeat(32)}`;

class StubSequencer implements AdminSequencer {
  active = false;
  recover = false;
  async start(hash: string) {
    if (this.active) throw new TernError('X', 'sequencer already running');
    if (hash !== HEAD) throw new TernError('X', `block hash does not match: head ${HEAD}`);
    this.active = true;
  }
  async stop() {
    this.active = false;
    return HEAD;
  }
  setRecoverMode(on: boolean) {
    this.recover = on;
  }
}

let server: HttpRpcServer | undefined;
let client: RpcClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.stop();
  server = undefined;
  client = undefined;
});

async function serve(admin: Partial<AdminApiDeps> | undefined) {
  const registry = new RpcRegistry().registerNamespace('optimism', { version: () => 'v0' });
  const calls: { reset: number; levels: LogLevel[]; posted: PayloadEnvelopeLike[] } = {
    reset: 0,
    levels: [],
    posted: [],
  };
  if (admin !== undefined) {
    registerAdminApi(registry, {
      resetDerivationPipeline: () => void calls.reset++,
      postUnsafePayload: async (env) => void calls.posted.push(env),
      setLogLevel: (l) => void calls.levels.push(l),
      ...admin,
    });
  }
  server = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
  const { url } = await server.start();
  client = new RpcClient({ url });
  return { rpc: client, calls };
}

describe('admin API gating', () => {
  it('is unreachable when not registered (no --rpc.enable-admin)', async () => {
    const { rpc } = await serve(undefined);
    expect(await rpc.call('optimism_version')).toBe('v0');
    for (const m of [
      'admin_sequencerActive',
      'admin_startSequencer',
      'admin_stopSequencer',
      'admin_resetDerivationPipeline',
    ]) {
      await expect(rpc.call(m, [])).rejects.toMatchObject({ code: -32601 });
    }
  });
});

describe('admin API', () => {
  it('starts and stops the sequencer, reports it, and refuses a wrong head', async () => {
    const seq = new StubSequencer();
    const { rpc } = await serve({ sequencer: seq });
    expect(await rpc.call('admin_sequencerActive')).toBe(false);
    await expect(rpc.call('admin_startSequencer', [`0x${'12'.repeat(32)}`])).rejects.toThrow(
      /block hash does not match/,
    );
    await expect(rpc.call('admin_startSequencer', ['0x1234'])).rejects.toMatchObject({ code: -32602 });
    expect(await rpc.call('admin_startSequencer', [HEAD.toUpperCase().replace('0X', '0x')])).toBeNull();
    expect(await rpc.call('admin_sequencerActive')).toBe(true);
    expect(await rpc.call('admin_stopSequencer')).toBe(HEAD);
    expect(await rpc.call('admin_sequencerActive')).toBe(false);
    expect(await rpc.call('admin_setRecoverMode', [true])).toBeNull();
    expect(seq.recover).toBe(true);
  });

  it('on a replica: sequencer methods say it is not enabled, sequencerActive is false', async () => {
    const { rpc } = await serve({});
    await expect(rpc.call('admin_startSequencer', [HEAD])).rejects.toThrow('sequencer is not enabled');
    await expect(rpc.call('admin_stopSequencer')).rejects.toThrow('sequencer is not enabled');
    expect(await rpc.call('admin_sequencerActive')).toBe(false);
    expect(await rpc.call('admin_conductorEnabled')).toBe(false);
  });

  it('resets derivation, sets the log level, posts unsafe payloads, overrides the conductor', async () => {
    let overridden = false;
    const conductor = {
      ...disabledConductor,
      enabled: true,
      overrideLeader: async () => {
        overridden = true;
      },
    };
    const { rpc, calls } = await serve({ conductor });
    expect(await rpc.call('admin_resetDerivationPipeline')).toBeNull();
    expect(calls.reset).toBe(1);
    expect(await rpc.call('admin_setLogLevel', ['debug'])).toBeNull();
    expect(await rpc.call('admin_setLogLevel', ['trace'])).toBeNull();
    expect(calls.levels).toEqual(['debug', 'detail']);
    await expect(rpc.call('admin_setLogLevel', ['loud'])).rejects.toMatchObject({ code: -32602 });
    expect(await rpc.call('admin_conductorEnabled')).toBe(true);
    await rpc.call('admin_overrideLeader');
    expect(overridden).toBe(true);
    const payload = {
      parentHash: new Uint8Array(32).fill(1),
      feeRecipient: new Uint8Array(20),
      stateRoot: new Uint8Array(32),
      receiptsRoot: new Uint8Array(32),
      logsBloom: new Uint8Array(256),
      prevRandao: new Uint8Array(32),
      blockNumber: 9n,
      gasLimit: 1n,
      gasUsed: 0n,
      timestamp: 5n,
      extraData: new Uint8Array(0),
      baseFeePerGas: 1n,
      blockHash: new Uint8Array(32).fill(7),
      transactions: [],
      withdrawals: [],
    };
    const root = new Uint8Array(32).fill(3);
    await rpc.call('admin_postUnsafePayload', [
      envelopeJson({ executionPayload: payload, parentBeaconBlockRoot: root }),
    ]);
    expect(calls.posted[0]?.executionPayload.blockNumber).toBe(9n);
    expect(calls.posted[0]?.parentBeaconBlockRoot).toEqual(root);
    await expect(rpc.call('admin_postUnsafePayload', [{}])).rejects.toMatchObject({ code: -32602 });
  });
});

describe('--rpc.admin-state', () => {
  it('persists started/stopped in op-node format and overrides --sequencer.stopped at the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-admin-'));
    try {
      const f = new AdminStateFile(join(dir, 'sub', 'admin.json'));
      expect(f.read()).toBe('unset');
      expect(initiallyStopped(true, f.read())).toBe(true);
      f.sequencerStarted();
      expect(JSON.parse(readFileSync(f.path, 'utf8'))).toEqual({ sequencerStarted: true });
      // A restart with --sequencer.stopped still starts: the admin API's last word wins.
      expect(initiallyStopped(true, new AdminStateFile(f.path).read())).toBe(false);
      f.sequencerStopped();
      expect(initiallyStopped(false, new AdminStateFile(f.path).read())).toBe(true);
      writeFileSync(f.path, '{"sequencerStarted": true, "x": 1}');
      expect(() => f.read()).toThrow(/unknown fields: x/);
      writeFileSync(f.path, 'nope');
      expect(() => f.read()).toThrow(/not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
