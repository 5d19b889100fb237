// The bundled networks as an operator starts them: `tern-exec --stack-network <name>` on an empty data directory
// writes the chain's genesis and serves block 0 with the registry's hash (a sample of superchains, block times,
// alt-DA and interop chains; the unit tests cover the hashes of all 57), refuses a migrated chain with the way to
// start it, and `tern-node --network <name>` loads the chain's rollup config. The L1 flags (--hoodi) serve geth's
// genesis block.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRegistryNetwork } from '../../src/main/networks/registry.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort, rpc } from '../helpers/processes.js';

const BIN = { 'tern-node': join(ROOT, 'bin/tern-node.js'), 'tern-exec': join(ROOT, 'bin/tern-exec.js') };
const work = mkdtempSync(join(tmpdir(), 'tern-networks-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Starts tern-exec with the network flags, returns block 0 as served and the output, and stops it. */
async function startAndReadGenesis(
  network: string,
  flags: string[],
): Promise<{ block: { hash: string; number: string }; output: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const datadir = join(work, network);
  const child = spawn(
    process.execPath,
    [
      BIN['tern-exec'],
      '--datadir',
      datadir,
      ...flags,
      '--http',
      '--http.addr',
      '127.0.0.1',
      '--http.port',
      String(port),
      '--http.api',
      'eth',
      '--authrpc.port',
      '0',
    ],
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`tern-exec exited ${child.exitCode}: ${output}`);
      try {
        const block = (await rpc(url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string; number: string };
        return { block, output };
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`tern-exec did not serve block 0: ${String(err)}\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(datadir, { recursive: true, force: true });
  }
}

describe('tern-exec --stack-network', () => {
  it.each([
    'op-sepolia',
    'base-mainnet',
    'unichain-sepolia',
    'redstone-mainnet',
    'rehearsal-0-bn-0-rehearsal-0-bn',
    'base-devnet-0-sepolia-dev-0',
  ])(
    '%s serves block 0 with the registry’s genesis hash',
    async (network) => {
      const { block } = await startAndReadGenesis(network, ['--stack-network', network]);
      expect(block.number).toBe('0x0');
      expect(block.hash).toBe(requireRegistryNetwork(network).chain.genesis.l2.hash);
    },
    180_000,
  );

  it('refuses op-mainnet (a migrated database) with one message naming init, exit 2', () => {
    const r = spawnSync(
      process.execPath,
      [BIN['tern-exec'], '--datadir', join(work, 'op-mainnet'), '--stack-network', 'op-mainnet', '--authrpc.port', '0'],
      { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/tern-exec: --stack-network op-mainnet needs special sync: .*migrated database/);
    expect(r.stderr).toMatch(/tern-exec init --datadir/);
    expect(r.stderr).not.toMatch(/\n\s+at \S+ \(/); // no stack trace
  }, 90_000);

  it('accepts the beta.stack-network alias', async () => {
    const r = spawnSync(
      process.execPath,
      [BIN['tern-exec'], '--datadir', join(work, 'beta'), '--beta.stack-network', 'boba-sepolia'],
      { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stderr).toMatch(/--stack-network boba-sepolia needs special sync/);
  }, 90_000);
});

describe('tern-exec L1 network flags', () => {
  it('--hoodi serves geth’s Hoodi genesis block and says once that it waits for a consensus client', async () => {
    const { block, output } = await startAndReadGenesis('hoodi', ['--hoodi']);
    expect(block.hash).toBe('0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b');
    expect(output.match(/Waiting for a consensus client/g)?.length).toBe(1);
  }, 180_000);

  it('refuses two networks at once, exit 2', () => {
    const r = spawnSync(
      process.execPath,
      [BIN['tern-exec'], '--datadir', join(work, 'two'), '--mainnet', '--sepolia'],
      {
        env: cleanEnv(),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tern-exec: flags --mainnet, --sepolia can't be used at the same time$/m);
  }, 90_000);
});

describe('tern-node --network', () => {
  it.each([
    'op-mainnet',
    'base-sepolia',
    'zora-mainnet',
    'redstone-mainnet',
    'fraxtal-mainnet',
    'oplabs-devnet-0-sepolia-dev-0',
    'rehearsal-0-bn-1-rehearsal-0-bn',
  ])(
    '%s loads the chain’s rollup config',
    (network) => {
      // No L1 is reachable, so the node stops after loading its config; the log shows which chain it loaded.
      const r = spawnSync(
        process.execPath,
        [
          BIN['tern-node'],
          '--network',
          network,
          '--l1',
          'http://127.0.0.1:1',
          '--l1.beacon',
          'http://127.0.0.1:1',
          '--l2',
          'http://127.0.0.1:1',
          '--l2.jwt-secret',
          join(work, `${network}.jwt`),
          '--rpc.port',
          '0',
          '--p2p.disable',
        ],
        { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 },
      );
      const chain = requireRegistryNetwork(network).chain;
      expect(r.stdout + r.stderr).toMatch(
        new RegExp(`msg="Rollup config".*l2ChainId=${chain.chain_id} .*genesisL2=${chain.genesis.l2.number}`),
      );
    },
    90_000,
  );
});
