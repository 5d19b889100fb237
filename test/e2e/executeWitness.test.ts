// `tern-exec execute-witness <file.json>` as a process over dist/: a local OP chain's blocks rebuilt from their
// witness files (JSON result on stdout, exit 0), and bad input answered with one line on stderr and exit 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv } from '../helpers/processes.js';
import { hex } from '../unit/main/exec/engine/fixture.js';
import { buildOpChain, type OpChain, writeWitnessFile } from '../unit/main/exec/witness/opChain.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const work = mkdtempSync(join(tmpdir(), 'tern-exec-witness-'));
let chain: OpChain;
const files: string[] = [];

function run(path: string) {
  const r = spawnSync(process.execPath, [BIN, 'execute-witness', path], {
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  chain = await buildOpChain();
  for (const [i, block] of chain.blocks.entries()) {
    const path = join(work, `block${i + 1}.json`);
    await writeWitnessFile(chain, block, path);
    files.push(path);
  }
}, 120_000);

afterAll(async () => {
  await chain?.fixture.close();
  rmSync(work, { recursive: true, force: true });
});

describe('tern-exec execute-witness', () => {
  it('prints the rebuilt block of each witness file', () => {
    for (const i of [0, chain.blocks.length - 1]) {
      const r = run(files[i] as string);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Record<string, string>;
      expect(Object.keys(out)).toEqual(['blockHash', 'stateRoot', 'receiptsRoot', 'gasUsed', 'logsBloom']);
      expect(out.blockHash).toBe(hex(chain.blocks[i]?.hash as Uint8Array));
    }
  }, 120_000);

  it('exits 1 with the reason on bad input', () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, '{"rollupConfig": {');
    let r = run(bad);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/tern-exec: .*bad\.json: not valid JSON/);

    const file = JSON.parse(readFileSync(files[1] as string, 'utf8')) as { witness: string[] };
    writeFileSync(bad, JSON.stringify({ ...file, witness: file.witness.slice(1) }));
    r = run(bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/witness lacks the preimage of 0x[0-9a-f]{64}/);

    r = run(join(work, 'missing.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read witness file/);
  }, 120_000);
});
