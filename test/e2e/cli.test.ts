// The two programs as a user runs them: real processes from bin/ over the compiled dist/ (npm test builds it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../src/main/cli/execFlags.js';
import { NODE_PROGRAM } from '../../src/main/cli/nodeFlags.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv } from '../helpers/processes.js';

const BIN = { 'tern-node': join(ROOT, 'bin/tern-node.js'), 'tern-exec': join(ROOT, 'bin/tern-exec.js') };
type Program = keyof typeof BIN;

function run(program: Program, args: string[], cwd?: string) {
  const env = cleanEnv();
  const r = spawnSync(process.execPath, [BIN[program], ...args], {
    encoding: 'utf8',
    cwd: cwd ?? ROOT,
    env,
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const work = mkdtempSync(join(tmpdir(), 'tern-cli-'));

describe.each([
  ['tern-node', NODE_PROGRAM],
  ['tern-exec', EXEC_PROGRAM],
] as const)('%s command line', (program, spec) => {
  it('--help lists every flag and exits 0', () => {
    const r = run(program, ['--help']);
    expect(r.code).toBe(0);
    for (const f of spec.flags) expect(r.stdout).toContain(f.name.length === 1 ? `-${f.name}` : `--${f.name}`);
    expect(run(program, ['-h']).stdout).toBe(r.stdout);
  });

  it('--version prints the version', () => {
    const r = run(program, ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${program} version \\d+\\.\\d+\\.\\d+`));
  });

  it.each([
    [['--no-such-flag'], /unknown flag --no-such-flag/],
    [['--pprof.port=99999'], /--pprof\.port.*port out of range/],
    [['--log.format=xml'], /--log\.format.*unknown value/],
  ])('rejects %j with one line on stderr and exit 2', (args, message) => {
    const r = run(program, args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toMatch(new RegExp(`^${program}: `));
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/\s+at /);
  });
});

describe('bad values of every kind', () => {
  it.each([
    ['tern-node', ['--l1.epoch-poll-interval=6 minutes'], /not a duration/],
    ['tern-node', ['--l1=localhost:8545'], /--l1.*(not a URL|scheme)/],
    ['tern-node', ['--p2p.netrestrict=10.0.0.0/40'], /CIDR/],
    ['tern-node', ['--signer.header=nokey'], /key=value/],
    ['tern-node', ['--l1.rpckind=nope'], /--l1\.rpckind.*unknown value/],
    ['tern-exec', ['--txpool.lifetime=forever'], /not a duration/],
    ['tern-exec', ['--nat=extip:nope'], /--nat/],
    ['tern-exec', ['--verbosity=9'], /--verbosity/],
    ['tern-exec', ['--config=/nonexistent/tern.toml'], /cannot read config file/],
    ['tern-exec', ['import'], /takes at least 1 argument/],
  ] as const)('%s %j', (program, args, message) => {
    const r = run(program, [...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(message);
  });

  it('refuses each flag whose behaviour is not built yet, naming it', () => {
    const refused = [
      ...EXEC_PROGRAM.flags.filter((f) => !f.implemented).map((f) => ['tern-exec', f] as const),
      ...NODE_PROGRAM.flags.filter((f) => !f.implemented).map((f) => ['tern-node', f] as const),
    ];
    for (const [program, flag] of refused) {
      // A value other than the default: only a change is refused.
      const arg =
        flag.kind === 'bool' ? `--${flag.name}=${flag.default === true ? 'false' : 'true'}` : `--${flag.name}=x`;
      const r = run(program, [arg]);
      expect(r.code, `${program} --${flag.name}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`not supported yet: --${flag.name.replace(/\./g, '\\.')}`));
    }
    // The README's list of refused flags is generated from the same tables: empty when nothing is refused.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('<!-- unsupported:begin'), readme.indexOf('<!-- unsupported:end'));
    for (const [, flag] of refused) expect(table).toContain(`\`--${flag.name}\``);
    if (refused.length === 0) expect(table).not.toMatch(/\| tern-/);
  });

  it('names a malformed JWT secret file', () => {
    const bad = join(work, 'bad-jwt.txt');
    writeFileSync(bad, '0x1234');
    const r = run('tern-node', [`--l2.jwt-secret=${bad}`, '--p2p.disable']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`JWT secret file ${bad} holds 2 bytes`);
  });
});

describe('tern-exec dumpconfig', () => {
  it('round-trips through --config', () => {
    const first = run('tern-exec', [
      '--http',
      '--http.port=9000',
      '--txpool.pricebump=25',
      '--gpo.blocks=7',
      'dumpconfig',
    ]);
    expect(first.code).toBe(0);
    const path = join(work, 'exec.toml');
    writeFileSync(path, first.stdout);
    const second = run('tern-exec', ['--config', path, 'dumpconfig']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stdout).toMatch(/HTTPPort = 9000/);
  });
});

function startAndStop(program: Program, args: string[], cwd: string) {
  return new Promise<{ code: number | null; ms: number; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN[program], ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let signalledAt = 0;
    const onData = (d: Buffer) => {
      output += d.toString();
      if (signalledAt === 0 && /Started tern-exec|Started tern-node/.test(output)) {
        signalledAt = Date.now();
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${program} did not start or stop in time:\n${output}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - signalledAt, output });
    });
  });
}

// A replica needs a rollup config and an engine; nothing answers on port 9, so it retries until stopped.
const NODE_ARGS = [
  '--network=op-sepolia',
  '--l1=http://127.0.0.1:9',
  '--l2=http://127.0.0.1:9',
  '--rpc.port=0',
  '--p2p.listen.ip=127.0.0.1',
  '--p2p.listen.tcp=0',
  '--p2p.peerstore.path=memory',
];

describe('lifecycle', () => {
  it('tern-node creates its JWT secret and P2P key, then stops on SIGTERM with exit 0 in under 5 s', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tern-node-run-'));
    const r = await startAndStop('tern-node', ['--log.format=json', ...NODE_ARGS], cwd);
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(5000);
    const jwt = join(cwd, 'jwt.txt');
    expect(existsSync(jwt)).toBe(true);
    expect(statSync(jwt).mode & 0o777).toBe(0o600);
    expect(readFileSync(jwt, 'utf8').trim()).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.output).toContain(jwt.slice(cwd.length + 1));
    const key = join(cwd, 'consensus_p2p_priv.txt');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const firstKey = readFileSync(key, 'utf8');
    const again = await startAndStop('tern-node', NODE_ARGS, cwd);
    expect(again.code).toBe(0);
    expect(readFileSync(key, 'utf8')).toBe(firstKey);
    expect(again.output).toMatch(/Loaded P2P identity key/);
  });

  it('tern-exec serves its chain, closes listeners and database on SIGTERM, exit 0 in under 5 s', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-exec-run-'));
    const genesis = join(ROOT, '..', 'shared', 'fixtures', 'execution-apis', 'tests', 'genesis.json');
    expect(run('tern-exec', ['init', `--datadir=${datadir}`, genesis]).code).toBe(0);
    const r = await startAndStop(
      'tern-exec',
      [`--datadir=${datadir}`, '--http', '--http.port=0', '--ws', '--ws.port=0'],
      work,
    );
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(5000);
    // Only what is not built is said to be: the snap sync client (snap is the default --syncmode), not discv5.
    expect(r.output).toMatch(/Not built yet[^\n]*snap sync/);
    expect(r.output).not.toMatch(/Not built yet[^\n]*discovery/);
    expect(existsSync(join(datadir, 'tern-exec.ipc'))).toBe(false);
    // The database was closed cleanly: it opens again.
    expect(run('tern-exec', ['init', `--datadir=${datadir}`, genesis]).stderr).toMatch(
      /Genesis already in the database/,
    );
  });

  it('tern-exec without a genesis in its datadir says to run init', () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-exec-run-'));
    const r = run('tern-exec', [`--datadir=${datadir}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/init/);
  });
});

describe('tern-exec init', () => {
  const genesisFile = join(ROOT, '..', 'shared', 'fixtures', 'execution-apis', 'tests', 'genesis.json');

  it('writes the genesis, is idempotent, and refuses a different genesis in the same datadir', () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-init-'));
    const first = run('tern-exec', ['init', `--datadir=${datadir}`, genesisFile]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /Successfully wrote genesis state.*hash=0x414c637788e37e9f65ed2c6ee962d32aeea39722ad50ee764e712fabebd69118/,
    );
    expect(existsSync(join(datadir, 'chaindata'))).toBe(true);
    expect(run('tern-exec', ['init', `--datadir=${datadir}`, genesisFile]).stderr).toMatch(
      /Genesis already in the database/,
    );
    const other = join(datadir, 'other.json');
    writeFileSync(other, JSON.stringify({ config: { chainId: 1 }, extraData: '0x01' }));
    const clash = run('tern-exec', ['init', `--datadir=${datadir}`, other]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/different genesis/);
  });

  it('names a bad genesis file', () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-init-'));
    const bad = join(datadir, 'bad.json');
    writeFileSync(bad, '{"config":{"chainId":1},"gasLimit":"lots"}');
    const r = run('tern-exec', ['init', `--datadir=${datadir}`, bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`genesis file ${bad}: genesis: gasLimit is invalid`);
    expect(run('tern-exec', ['init', `--datadir=${datadir}`, join(datadir, 'nope.json')]).stderr).toMatch(/ENOENT/);
  });
});

describe('tern-exec import', () => {
  const fixtures = join(ROOT, '..', 'shared', 'fixtures', 'execution-apis', 'tests');

  it('imports a chain, reports progress, skips known blocks on a second run', () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-import-'));
    expect(run('tern-exec', ['init', `--datadir=${datadir}`, join(fixtures, 'genesis.json')]).code).toBe(0);
    const r = run('tern-exec', ['import', `--datadir=${datadir}`, join(fixtures, 'chain.rlp')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Import done.*blocks=20 .*head=20 .*mgas\/s=/);
    const again = run('tern-exec', ['import', `--datadir=${datadir}`, join(fixtures, 'chain.rlp')]);
    expect(again.stderr).toMatch(/Import done.*blocks=0 skipped=20/);
  });

  it('stops at an invalid block with its number and reason, keeping the blocks before it', async () => {
    const { decodeBlock, encodeBlock } = await import('../../src/main/primitives/block/block.js');
    const { rlpItems } = await import('../../src/main/primitives/rlpStream.js');
    const blocks = [...rlpItems(readFileSync(join(fixtures, 'chain.rlp')))].map(decodeBlock);
    const bad = blocks[4] as (typeof blocks)[number];
    bad.header.gasUsed += 1n;
    const file = join(work, 'bad-chain.rlp');
    writeFileSync(file, Buffer.concat(blocks.slice(0, 6).map((b) => encodeBlock(b))));
    const datadir = mkdtempSync(join(tmpdir(), 'tern-import-'));
    run('tern-exec', ['init', `--datadir=${datadir}`, join(fixtures, 'genesis.json')]);
    const r = run('tern-exec', ['import', `--datadir=${datadir}`, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /tern-exec: import of .*bad-chain\.rlp stopped at block #5 of the file: block 5 .* is invalid: /,
    );
    expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+\)?\n/);
    // The four good blocks stay: importing the good file again skips them.
    const good = join(work, 'good-chain.rlp');
    writeFileSync(good, readFileSync(join(fixtures, 'chain.rlp')));
    expect(run('tern-exec', ['import', `--datadir=${datadir}`, good]).stderr).toMatch(/blocks=16 skipped=4/);
  });

  it('refuses to import into a datadir without a genesis', () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-import-'));
    const r = run('tern-exec', ['import', `--datadir=${datadir}`, join(fixtures, 'chain.rlp')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/run `tern-exec init <genesis.json>` first/);
  });
});
