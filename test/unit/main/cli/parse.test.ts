import { describe, expect, it } from 'vitest';
import type { FlagSpec, ProgramSpec } from '../../../../src/main/cli/flag.js';
import { assertSupported, parseSettings } from '../../../../src/main/cli/parse.js';
import { UsageError } from '../../../../src/main/common/errors.js';

const flag = (f: Partial<FlagSpec> & Pick<FlagSpec, 'name' | 'kind'>): FlagSpec => ({
  help: 'h',
  category: 'c',
  implemented: true,
  ...f,
});

const PROGRAM: ProgramSpec = {
  program: 'tern-node',
  envPrefix: 'TERN_TEST',
  summary: 'test',
  tomlConfig: false,
  subcommands: [{ name: 'init', args: '<file>', help: 'x', implemented: true, minArgs: 1, maxArgs: 1 }],
  flags: [
    flag({ name: 'help', aliases: ['h'], kind: 'bool', default: false }),
    flag({ name: 'http', kind: 'bool', default: false }),
    flag({ name: 'p2p.ban.peers', kind: 'bool', default: true }),
    flag({ name: 'l1', kind: 'url', schemes: ['http', 'https', 'ws', 'wss'], default: 'http://127.0.0.1:8545' }),
    flag({ name: 'l1.epoch-poll-interval', kind: 'duration', default: 384_000 }),
    flag({ name: 'rpc.port', kind: 'port', default: 9545 }),
    flag({ name: 'l1.max-concurrency', kind: 'uint', default: 10, min: 1 }),
    flag({ name: 'p2p.ban.threshold', kind: 'float', default: -100 }),
    flag({ name: 'log.format', kind: 'enum', values: ['text', 'json'], default: 'text' }),
    flag({ name: 'p2p.netrestrict', kind: 'cidrList' }),
    flag({ name: 'signer.header', kind: 'keyValue', repeatable: true }),
    flag({ name: 'l1.beacon-header', kind: 'header' }),
    flag({ name: 'http.api', kind: 'list' }),
    flag({ name: 'p2p.listen.ip', kind: 'ip', default: '0.0.0.0' }),
    flag({ name: 'p2p.sequencer.key', kind: 'hex32' }),
    flag({ name: 'discovery.v4', aliases: ['discv4'], kind: 'bool', default: false }),
    flag({ name: 'p2p.static', kind: 'list', implemented: false }),
  ],
};

const parse = (argv: string[], env: Record<string, string> = {}) => parseSettings(PROGRAM, { argv, env });
const usage = (argv: string[], env: Record<string, string> = {}): string => {
  try {
    parse(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('parseSettings', () => {
  it('gives defaults when nothing is set', () => {
    const s = parse([]);
    expect(s.get('l1.epoch-poll-interval')).toBe(384_000);
    expect(s.get('p2p.ban.peers')).toBe(true);
    expect(s.source('rpc.port')).toBe('default');
    expect(s.isSet('rpc.port')).toBe(false);
  });

  it('accepts --name=value and --name value', () => {
    expect(parse(['--rpc.port=1234']).get('rpc.port')).toBe(1234);
    expect(parse(['--rpc.port', '1234']).get('rpc.port')).toBe(1234);
    expect(parse(['-rpc.port', '1234']).get('rpc.port')).toBe(1234);
    expect(parse(['--p2p.ban.threshold', '-50']).get('p2p.ban.threshold')).toBe(-50);
  });

  it('takes booleans bare or with =true|false', () => {
    expect(parse(['--http']).get('http')).toBe(true);
    expect(parse(['--http=true']).get('http')).toBe(true);
    expect(parse(['--p2p.ban.peers=false']).get('p2p.ban.peers')).toBe(false);
    expect(usage(['--http', 'false'])).toMatch(/--http=false/);
    expect(usage(['--http=maybe'])).toMatch(/--http.*not a boolean/);
  });

  it('resolves aliases, short names included', () => {
    expect(parse(['--discv4']).get('discovery.v4')).toBe(true);
    expect(parse(['-h']).get('help')).toBe(true);
  });

  it('parses durations, lists, CIDRs, pairs and headers', () => {
    const s = parse([
      '--l1.epoch-poll-interval=1h0m0s',
      '--p2p.netrestrict=10.0.0.0/8, 192.168.0.0/16',
      '--signer.header=a=b',
      '--signer.header',
      'Authorization=Bearer x=y',
      '--l1.beacon-header=X-Key: secret',
      '--http.api=eth, net,,web3',
    ]);
    expect(s.get('l1.epoch-poll-interval')).toBe(3_600_000);
    expect(s.get('p2p.netrestrict')).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
    expect(s.get('signer.header')).toEqual([
      ['a', 'b'],
      ['Authorization', 'Bearer x=y'],
    ]);
    expect(s.get('l1.beacon-header')).toEqual([['X-Key', 'secret']]);
    expect(s.get('http.api')).toEqual(['eth', 'net', 'web3']);
  });

  it('reads environment variables, comma-splitting repeatable flags; the command line wins', () => {
    const env = {
      TERN_TEST_RPC_PORT: '7000',
      TERN_TEST_SIGNER_HEADER: 'a=1,b=2',
      TERN_TEST_L1_EPOCH_POLL_INTERVAL: '30s',
    };
    const s = parse(['--rpc.port=8000'], env);
    expect(s.get('rpc.port')).toBe(8000);
    expect(s.source('rpc.port')).toBe('cli');
    expect(s.get('signer.header')).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(s.get('l1.epoch-poll-interval')).toBe(30_000);
    expect(s.source('l1.epoch-poll-interval')).toBe('env');
    expect(usage([], { TERN_TEST_RPC_PORT: 'x' })).toMatch(/TERN_TEST_RPC_PORT.*--rpc\.port.*not an integer/);
  });

  it('rejects malformed values with one line naming the flag', () => {
    expect(usage(['--l1.epoch-poll-interval=6 minutes'])).toMatch(/--l1\.epoch-poll-interval.*not a duration/);
    expect(usage(['--rpc.port=70000'])).toMatch(/--rpc\.port.*out of range/);
    expect(usage(['--rpc.port=-1'])).toMatch(/--rpc\.port/);
    expect(usage(['--log.format=xml'])).toMatch(/--log\.format.*accepted: text, json/);
    expect(usage(['--l1=not a url'])).toMatch(/--l1.*not a URL/);
    expect(usage(['--l1=ftp://x'])).toMatch(/--l1.*scheme "ftp"/);
    expect(usage(['--p2p.netrestrict=10.0.0.0/33'])).toMatch(/--p2p\.netrestrict.*CIDR/);
    expect(usage(['--p2p.netrestrict=10.0.0.0'])).toMatch(/CIDR/);
    expect(usage(['--signer.header=novalue'])).toMatch(/--signer\.header.*key=value/);
    expect(usage(['--signer.header==x'])).toMatch(/--signer\.header/);
    expect(usage(['--l1.beacon-header=Bad Name: x'])).toMatch(/header name/);
    expect(usage(['--l1.max-concurrency=0'])).toMatch(/at least 1/);
    expect(usage(['--p2p.listen.ip=localhost'])).toMatch(/not an IP/);
    expect(usage(['--p2p.sequencer.key=0x1234'])).toMatch(/32 bytes/);
    expect(usage(['--rpc.port'])).toMatch(/needs a value/);
    for (const msg of [usage(['--rpc.port=x']), usage(['--bogus'])]) expect(msg).not.toMatch(/\n/);
  });

  it('rejects unknown flags, with a suggestion', () => {
    expect(usage(['--rpc.prot=1'])).toMatch(/unknown flag --rpc\.prot \(did you mean --rpc\.port\?\)/);
    expect(usage(['--completely-unknown'])).toMatch(/^unknown flag --completely-unknown$/);
  });

  it('handles sub-commands and their arguments', () => {
    const s = parse(['--http', 'init', 'genesis.json', '--rpc.port=1']);
    expect(s.subcommand?.name).toBe('init');
    expect(s.args).toEqual(['genesis.json']);
    expect(s.get('rpc.port')).toBe(1);
    expect(usage(['init'])).toMatch(/takes 1 argument/);
    expect(usage(['inti', 'x'])).toMatch(/unknown command "inti" \(did you mean init\?\)/);
  });

  it('refuses a non-default value for a flag whose behaviour is not built', () => {
    expect(() => assertSupported(parse([]))).not.toThrow();
    expect(() => assertSupported(parse(['--p2p.static=']))).not.toThrow();
    expect(() => assertSupported(parse(['--p2p.static=/ip4/1.2.3.4/tcp/1/p2p/x']))).toThrow(
      /not supported yet: --p2p\.static/,
    );
  });
});
