// `npm start`: runs tern-exec and tern-node side by side in .tern-start/, their logs prefixed on one terminal,
// until Ctrl-C, which stops both cleanly. (The full local network — layer 1, sequencer, batcher, replica —
// replaces this once tern-devnet exists.)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const workdir = '.tern-start';
mkdirSync(workdir, { recursive: true });

// A local chain with every fork through Cancun at genesis and one funded account (the well-known first test
// account of anvil/hardhat: key 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80).
const genesis = {
  config: {
    chainId: 1337,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
    cancunTime: 0,
  },
  difficulty: '0x0',
  gasLimit: '0x1c9c380',
  baseFeePerGas: '0x3b9aca00',
  alloc: { f39fd6e51aad88f6f4ce6ab8827279cfffb92266: { balance: '0x3635c9adc5dea00000' } },
};
const genesisPath = join(workdir, 'genesis.json');
writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);
const execDir = join(workdir, 'exec');
const init = spawnSync(process.execPath, ['bin/tern-exec.js', 'init', `--datadir=${execDir}`, genesisPath], {
  stdio: 'inherit',
});
if (init.status !== 0) process.exit(init.status ?? 1);

const programs = [
  {
    name: 'exec',
    args: ['bin/tern-exec.js', `--datadir=${execDir}`, '--http', '--http.port=8545', '--http.api=eth,net,web3,debug'],
  },
  {
    name: 'node',
    args: [
      'bin/tern-node.js',
      '--log.level=debug',
      `--l2.jwt-secret=${join(workdir, 'jwt.txt')}`,
      `--p2p.priv.path=${join(workdir, 'p2p_priv.txt')}`,
    ],
  },
];

let stopping = false;
const children = programs.map(({ name, args }) => {
  // Own process group: Ctrl-C reaches only this script, which stops each program once, with SIGTERM.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`${name.padEnd(4)} | ${line}`));
  }
  child.on('exit', (code, signal) => {
    console.log(`${name.padEnd(4)} | exited (${signal ?? `code ${code}`})`);
    if (!stopping) stopAll(code === 0 ? 0 : 1);
  });
  return child;
});

let exitCode = 0;
function stopAll(code) {
  stopping = true;
  exitCode = code;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
process.on('exit', () => {
  process.exitCode = exitCode;
});
console.log(
  `tern: started tern-exec (JSON-RPC at http://127.0.0.1:8545) and tern-node in ${workdir}/ — Ctrl-C stops both`,
);
