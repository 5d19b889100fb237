// `npm start`: runs tern-exec and tern-node side by side in .tern-start/, their logs prefixed on one terminal,
// until Ctrl-C, which stops both cleanly. (The full local network — layer 1, sequencer, batcher, replica —
// replaces this once tern-devnet exists.)
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const workdir = '.tern-start';
mkdirSync(workdir, { recursive: true });

const programs = [
  { name: 'exec', args: ['bin/tern-exec.js', '--verbosity=4'] },
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
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
console.log(`tern: started tern-exec and tern-node in ${workdir}/ — Ctrl-C stops both`);
