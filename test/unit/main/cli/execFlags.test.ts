import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import type { FlagKind, FlagSpec, FlagValue } from '../../../../src/main/cli/flag.js';
import { NETWORK_NAMES } from '../../../../src/main/cli/networks.js';
import { assertSupported, parseSettings, unsupportedSettings } from '../../../../src/main/cli/parse.js';
import { dumpTomlConfig } from '../../../../src/main/cli/toml.js';
import { formatValue, parseValue } from '../../../../src/main/cli/values.js';

const FLAGS = EXEC_PROGRAM.flags;
const META_WITHOUT_TOML = ['help', 'version', 'config', 'header', 'exec', 'jspath', 'preload'];

function flag(name: string): FlagSpec {
  const spec = FLAGS.find((f) => f.name === name);
  if (spec === undefined) throw new Error(`no flag ${name}`);
  return spec;
}

/** Parses text the way the command line would, including the flag's check; returns the error message or value. */
function tryParse(name: string, text: string): { ok: true; value: FlagValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseValue(flag(name), text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function accepts(name: string, text: string): boolean {
  return tryParse(name, text).ok;
}

const STRING_KINDS: readonly FlagKind[] = ['string', 'path', 'url', 'ip', 'host', 'enum', 'hex32', 'address', 'hash'];
const NUMBER_KINDS: readonly FlagKind[] = ['int', 'uint', 'float', 'duration', 'port'];
const LIST_KINDS: readonly FlagKind[] = ['list', 'enumList', 'cidrList', 'urlList'];

describe('EXEC_PROGRAM table', () => {
  it('describes tern-exec', () => {
    expect(EXEC_PROGRAM.program).toBe('tern-exec');
    expect(EXEC_PROGRAM.envPrefix).toBe('TERN_EXEC');
    expect(EXEC_PROGRAM.tomlConfig).toBe(true);
    expect(EXEC_PROGRAM.summary).not.toContain('\n');
    expect(EXEC_PROGRAM.summary.length).toBeGreaterThan(10);
  });

  it('has no duplicate names or aliases', () => {
    const seen = new Set<string>();
    for (const f of FLAGS) {
      for (const n of [f.name, ...(f.aliases ?? [])]) {
        expect(seen.has(n), `duplicate flag name ${n}`).toBe(false);
        seen.add(n);
      }
    }
  });

  it('has the required aliases', () => {
    expect(flag('help').aliases).toEqual(['h']);
    expect(flag('version').aliases).toEqual(['v']);
    expect(flag('header').aliases).toEqual(['H']);
    expect(flag('discovery.v4').aliases).toEqual(['discv4']);
    expect(flag('discovery.v5').aliases).toEqual(['discv5']);
    expect(flag('stack-network').aliases).toEqual(['beta.stack-network']);
    expect(flag('rollup.superchain-upgrades').aliases).toEqual(['beta.rollup.superchain-upgrades']);
  });

  it('gives every flag but the meta ones a unique TOML key, none a prefix of another', () => {
    const keys = new Set<string>();
    for (const f of FLAGS) {
      if (META_WITHOUT_TOML.includes(f.name)) {
        expect(f.toml, `${f.name} should have no TOML key`).toBeUndefined();
        continue;
      }
      expect(f.toml, `${f.name} has no TOML key`).toMatch(/^[A-Z][A-Za-z0-9]*(\.[A-Z][A-Za-z0-9]*)+$/);
      expect(keys.has(f.toml as string), `duplicate TOML key ${f.toml}`).toBe(false);
      keys.add(f.toml as string);
    }
    for (const a of keys) {
      for (const b of keys) expect(b.startsWith(`${a}.`), `${a} is a table prefix of ${b}`).toBe(false);
    }
  });

  it('uses geth key names where geth has the setting', () => {
    const expected: Record<string, string> = {
      networkid: 'Eth.NetworkId',
      syncmode: 'Eth.SyncMode',
      'txpool.pricelimit': 'Eth.TxPool.PriceLimit',
      'txpool.lifetime': 'Eth.TxPool.Lifetime',
      'blobpool.datacap': 'Eth.BlobPool.Datacap',
      'gpo.blocks': 'Eth.GPO.Blocks',
      'rpc.gascap': 'Eth.RPCGasCap',
      'rpc.evmtimeout': 'Eth.RPCEVMTimeout',
      'rpc.txfeecap': 'Eth.RPCTxFeeCap',
      'rollup.sequencerhttp': 'Eth.RollupSequencerHTTP',
      'rollup.historicalrpc': 'Eth.RollupHistoricalRPC',
      datadir: 'Node.DataDir',
      'http.addr': 'Node.HTTPHost',
      'http.port': 'Node.HTTPPort',
      'http.api': 'Node.HTTPModules',
      'http.corsdomain': 'Node.HTTPCors',
      'http.vhosts': 'Node.HTTPVirtualHosts',
      'ws.addr': 'Node.WSHost',
      'authrpc.addr': 'Node.AuthAddr',
      'authrpc.port': 'Node.AuthPort',
      'authrpc.jwtsecret': 'Node.JWTSecret',
      ipcpath: 'Node.IPCPath',
      maxpeers: 'Node.P2P.MaxPeers',
      port: 'Node.P2P.ListenAddr',
      nodiscover: 'Node.P2P.NoDiscovery',
      'discovery.v4': 'Node.P2P.DiscoveryV4',
      metrics: 'Metrics.Enabled',
      'metrics.addr': 'Metrics.HTTP',
      'metrics.port': 'Metrics.Port',
      'metrics.tsdb.endpoint': 'Metrics.InfluxDBEndpoint',
      ethstats: 'Ethstats.URL',
    };
    for (const [name, key] of Object.entries(expected)) expect(flag(name).toml, name).toBe(key);
  });

  it('keeps every enum default among its values, and enum values non-empty and unique', () => {
    for (const f of FLAGS) {
      if (f.kind !== 'enum' && f.kind !== 'enumList') {
        expect(f.values, `${f.name} has values but is not an enum`).toBeUndefined();
        continue;
      }
      expect(f.values?.length, f.name).toBeGreaterThan(0);
      expect(new Set(f.values).size, f.name).toBe(f.values?.length);
      if (f.default === undefined) continue;
      const defaults = f.kind === 'enum' ? [f.default as string] : (f.default as string[]);
      for (const d of defaults) expect(f.values, f.name).toContain(d);
    }
  });

  it('gives every default the JS type of its kind', () => {
    for (const f of FLAGS) {
      const d = f.default;
      if (d === undefined) continue;
      if (f.kind === 'bool') expect(typeof d, f.name).toBe('boolean');
      else if (STRING_KINDS.includes(f.kind)) expect(typeof d, f.name).toBe('string');
      else if (NUMBER_KINDS.includes(f.kind)) {
        expect(typeof d, f.name).toBe('number');
        expect(Number.isFinite(d), f.name).toBe(true);
        if (f.kind !== 'float') expect(Number.isSafeInteger(d), f.name).toBe(true);
        if (f.kind !== 'int' && f.kind !== 'float') expect(d as number, f.name).toBeGreaterThanOrEqual(0);
        if (f.min !== undefined) expect(d as number, f.name).toBeGreaterThanOrEqual(f.min);
        if (f.max !== undefined) expect(d as number, f.name).toBeLessThanOrEqual(f.max);
      } else if (LIST_KINDS.includes(f.kind)) {
        expect(Array.isArray(d), f.name).toBe(true);
        for (const item of d as unknown[]) expect(typeof item, f.name).toBe('string');
      } else if (f.kind === 'keyValue' || f.kind === 'header') {
        expect(Array.isArray(d), f.name).toBe(true);
      }
    }
  });

  it('round-trips every default through its own kind and check', () => {
    for (const f of FLAGS) {
      if (f.default === undefined || f.kind === 'bool') continue;
      expect(parseValue(f, formatValue(f, f.default)), f.name).toEqual(f.default);
    }
  });

  it('marks only header-like flags repeatable', () => {
    for (const f of FLAGS) {
      const want = f.kind === 'header' || f.kind === 'keyValue';
      expect(f.repeatable === true, f.name).toBe(want);
    }
    expect(flag('header').kind).toBe('header');
  });

  it('uses the seed categories', () => {
    const categories = new Set(FLAGS.map((f) => f.category));
    expect([...categories].sort()).toEqual(
      [
        'Account management',
        'RPC and API',
        'Development chain',
        'Chain and network',
        'Gas price oracle',
        'Logging and debugging',
        'Metrics',
        'Peer-to-peer',
        'Performance',
        'Rollup',
        'State and history',
        'Transaction pool',
        'Miscellaneous',
      ].sort(),
    );
    for (const n of ['help', 'version', 'header', 'config']) expect(flag(n).category).toBe('Miscellaneous');
    for (const f of FLAGS) expect(f.help.length, f.name).toBeGreaterThan(3);
  });

  it('gives the listed kinds', () => {
    const kinds: Record<string, FlagKind> = {
      'http.addr': 'host',
      'ws.addr': 'host',
      'authrpc.addr': 'host',
      'pprof.addr': 'host',
      'metrics.addr': 'host',
      'http.port': 'port',
      'ws.port': 'port',
      'authrpc.port': 'port',
      'pprof.port': 'port',
      'metrics.port': 'port',
      port: 'port',
      'discovery.port': 'port',
      'http.api': 'enumList',
      'ws.api': 'enumList',
      'http.corsdomain': 'list',
      'http.vhosts': 'list',
      'authrpc.vhosts': 'list',
      'graphql.corsdomain': 'list',
      'graphql.vhosts': 'list',
      'ws.origins': 'list',
      'txpool.locals': 'list',
      bootnodes: 'list',
      'discovery.dns': 'list',
      preload: 'list',
      netrestrict: 'cidrList',
      'rollup.sequencerhttp': 'url',
      'rollup.historicalrpc': 'url',
      'rollup.interoprpc': 'url',
      'metrics.tsdb.endpoint': 'url',
      remotedb: 'string',
      signer: 'string',
      synctarget: 'hash',
      'rpc.txfeecap': 'float',
      verbosity: 'uint',
      'vmtrace.jsonconfig': 'json',
      nodekeyhex: 'hex32',
      'rpc.evmtimeout': 'duration',
      'txpool.lifetime': 'duration',
      'txpool.rejournal': 'duration',
      'rollup.historicalrpctimeout': 'duration',
    };
    for (const [name, kind] of Object.entries(kinds)) expect(flag(name).kind, name).toBe(kind);
    for (const name of ['rollup.sequencerhttp', 'rollup.historicalrpc', 'rollup.interoprpc', 'metrics.tsdb.endpoint']) {
      expect(flag(name).schemes, name).toEqual(['http', 'https']);
    }
    expect(flag('verbosity').min).toBe(0);
    expect(flag('verbosity').max).toBe(5);
    expect(flag('rpc.txfeecap').min).toBe(0);
    expect(flag('stack-network').values).toEqual(NETWORK_NAMES);
    expect(flag('http.api').values).toEqual(flag('ws.api').values);
    const enums: Record<string, string[]> = {
      'log.format': ['json', 'logfmt', 'terminal'],
      'db.engine': ['lmdb', 'memory', 'pebble', 'leveldb'],
      gcmode: ['full', 'archive'],
      'state.scheme': ['hash', 'path'],
      syncmode: ['snap', 'full'],
      'history.chain': ['all', 'postmerge'],
      'crypto.kzg': ['gokzg', 'ckzg'],
      'rollup.halt': ['major', 'minor', 'patch', 'none'],
    };
    for (const [name, values] of Object.entries(enums)) {
      expect(flag(name).kind, name).toBe('enum');
      expect(flag(name).values, name).toEqual(values);
    }
  });

  it('sets the concrete defaults behind the seed phrases', () => {
    expect(flag('datadir').default).toBe(join(homedir(), '.tern-exec'));
    expect(flag('cache').default).toBe(4096);
    expect(flag('cache.gc').default).toBe(25);
    expect(flag('cache.snapshot').default).toBe(10);
    expect(flag('cache.trie').default).toBe(15);
    for (const n of ['database', 'bucket', 'organization']) expect(flag(`metrics.tsdb.${n}`).default).toBe('tern-exec');
    for (const n of ['username', 'password', 'token']) expect(flag(`metrics.tsdb.${n}`).default).toBe('test');
    expect(flag('vmtrace.jsonconfig').default).toEqual({});
    expect(flag('metrics.tsdb.tags').default).toEqual(['host=localhost']);
    expect(flag('txpool.lifetime').default).toBe(10_800_000);
    expect(flag('txpool.rejournal').default).toBe(3_600_000);
    expect(flag('rpc.evmtimeout').default).toBe(5000);
  });
});

describe('EXEC_PROGRAM sub-commands', () => {
  it('lists the sub-commands with their arity', () => {
    const arity = Object.fromEntries(EXEC_PROGRAM.subcommands.map((s) => [s.name, [s.minArgs, s.maxArgs]]));
    expect(arity).toEqual({
      init: [1, 1],
      import: [1, Number.POSITIVE_INFINITY],
      export: [1, 3],
      'import-history': [1, 1],
      'export-history': [3, 3],
      dumpconfig: [0, 0],
      console: [0, 0],
      attach: [0, 1],
      'execute-witness': [1, 1],
      snapshot: [1, 2],
    });
    const args = Object.fromEntries(EXEC_PROGRAM.subcommands.map((s) => [s.name, s.args]));
    expect(args.init).toBe('<genesis.json>');
    expect(args.import).toBe('<file.rlp>...');
    expect(args.export).toBe('<file> [first last]');
    expect(args.attach).toBe('[endpoint]');
    expect(args['execute-witness']).toBe('<file.json>');
    expect(args.snapshot).toBe('prune-state [root]');
    // geth's chaincmd.go ArgsUsage.
    expect(args['import-history']).toBe('<dir>');
    expect(args['export-history']).toBe('<dir> <first> <last>');
  });
});

describe('EXEC_PROGRAM value checks', () => {
  it('--nat accepts the documented forms only', () => {
    for (const ok of [
      'any',
      'none',
      'upnp',
      'pmp',
      'pmp:192.168.0.1',
      'extip:1.2.3.4',
      'extip:2001:db8::1',
      'stun:1.2.3.4:3478',
      'stun:[2001:db8::1]:3478',
    ]) {
      expect(accepts('nat', ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      'auto',
      'extip:nope',
      'extip:',
      'pmp:host',
      'stun:1.2.3.4',
      'stun:stun.example:3478',
      'stun:1.2.3.4:0',
      'stun:1.2.3.4:70000',
      'upnp:1.2.3.4',
      'foo:1.2.3.4',
    ]) {
      expect(accepts('nat', bad), bad).toBe(false);
    }
    expect(tryParse('nat', 'extip:nope')).toEqual({ ok: false, error: expect.stringContaining('not an IP address') });
  });

  it('--ethstats accepts nodename:secret@host:port only', () => {
    for (const ok of [
      'node:secret@host:3000',
      'my node:s3cr:et@stats.example.org:443',
      'n:s@10.0.0.1:3000',
      'n:s@[::1]:3000',
    ]) {
      expect(accepts('ethstats', ok), ok).toBe(true);
    }
    for (const bad of [
      'nohost',
      'node:secret@host',
      'node@host:3000',
      ':secret@host:3000',
      'node:@host:3000',
      'node:secret@:3000',
      'node:secret@host:port',
      'node:secret@host:99999',
      'node:se@cret@host:3000',
    ]) {
      expect(accepts('ethstats', bad), bad).toBe(false);
    }
  });

  it('--eth.requiredblocks accepts <number>=<hash> lists', () => {
    const h = `0x${'ab'.repeat(32)}`;
    expect(
      tryParse('eth.requiredblocks', `1=${h},18446744073709551615=${h.toUpperCase().replace('0X', '0x')}`).ok,
    ).toBe(true);
    for (const bad of [
      `x=${h}`,
      `1=${h.slice(2)}`,
      `1=${h}00`,
      '1=0x12',
      `18446744073709551616=${h}`,
      `1:${h}`,
      `=${h}`,
    ]) {
      expect(accepts('eth.requiredblocks', bad), bad).toBe(false);
    }
  });

  it('--log.vmodule accepts <pattern>=<level 0-5> lists', () => {
    expect(tryParse('log.vmodule', 'eth/*=5, p2p=4,core/vm.go=0')).toEqual({
      ok: true,
      value: ['eth/*=5', 'p2p=4', 'core/vm.go=0'],
    });
    for (const bad of ['eth', 'eth=6', 'eth=debug', '=3', 'eth=-1', 'eth=3=4'])
      expect(accepts('log.vmodule', bad), bad).toBe(false);
  });

  it('--metrics.tsdb.tags accepts key=value lists', () => {
    expect(tryParse('metrics.tsdb.tags', 'host=localhost,region=eu')).toEqual({
      ok: true,
      value: ['host=localhost', 'region=eu'],
    });
    for (const bad of ['host', '=x', 'host=', 'a=b=c']) expect(accepts('metrics.tsdb.tags', bad), bad).toBe(false);
  });

  it('--txpool.locals accepts 0x 20-byte addresses only', () => {
    const a = `0x${'12'.repeat(20)}`;
    expect(tryParse('txpool.locals', `${a},${a.toUpperCase().replace('0X', '0x')}`).ok).toBe(true);
    for (const bad of [a.slice(2), `${a}00`, '0x1234', 'alice']) expect(accepts('txpool.locals', bad), bad).toBe(false);
  });

  it('--nodekeyhex accepts 32-byte hex private keys', () => {
    expect(tryParse('nodekeyhex', 'AB'.repeat(32))).toEqual({ ok: true, value: `0x${'ab'.repeat(32)}` });
    expect(accepts('nodekeyhex', `0x${'01'.repeat(32)}`)).toBe(true);
    for (const bad of ['00'.repeat(32), 'ff'.repeat(32), 'ab'.repeat(31), 'zz'.repeat(32)])
      expect(accepts('nodekeyhex', bad), bad).toBe(false);
  });

  it('--bootnodes accepts enode URLs and ENR records', () => {
    const id = 'a'.repeat(128);
    for (const ok of [
      `enode://${id}@10.3.58.6:30303`,
      `enode://${id}@boot.example.org:30303?discport=30301`,
      `enode://${id}@[::1]:30303`,
      'enr:-IS4QHCYrYZbAKWCBRlAy5zzaDZXJBGkcnh4MHcBFZntXNFrdvJjX04jRzjzCBOonrkTfj499SZuOh8R33Ls8RRcy5wBgmlkgnY0',
    ]) {
      expect(accepts('bootnodes', ok), ok).toBe(true);
    }
    for (const bad of ['enode://abc@1.2.3.4:30303', `enode://${id}`, `enode://${id}@1.2.3.4`, 'http://1.2.3.4:30303']) {
      expect(accepts('bootnodes', bad), bad).toBe(false);
    }
  });

  it('--discovery.dns accepts enrtree URLs, and an empty string disables it', () => {
    expect(
      tryParse(
        'discovery.dns',
        'enrtree://AKA3AM6LPBYEUDMVNU3BSVQJ5AD45Y7YPOHJLEF6W26QOE4VTUDPE@all.mainnet.ethdisco.net',
      ),
    ).toEqual({
      ok: true,
      value: ['enrtree://AKA3AM6LPBYEUDMVNU3BSVQJ5AD45Y7YPOHJLEF6W26QOE4VTUDPE@all.mainnet.ethdisco.net'],
    });
    expect(tryParse('discovery.dns', '')).toEqual({ ok: true, value: [] });
    for (const bad of ['all.mainnet.ethdisco.net', 'enrtree://@x.net', 'https://x.net'])
      expect(accepts('discovery.dns', bad), bad).toBe(false);
  });

  it('--http.rpcprefix and --ws.rpcprefix need a leading slash', () => {
    for (const n of ['http.rpcprefix', 'ws.rpcprefix']) {
      expect(accepts(n, '/'), n).toBe(true);
      expect(accepts(n, '/rpc'), n).toBe(true);
      expect(accepts(n, 'rpc'), n).toBe(false);
      expect(accepts(n, '/rpc?x'), n).toBe(false);
    }
  });

  it('validates the other kinds', () => {
    expect(accepts('http.api', 'eth,net,web3')).toBe(true);
    expect(accepts('http.api', 'eth,personal')).toBe(false);
    expect(accepts('netrestrict', '10.0.0.0/8,2001:db8::/32')).toBe(true);
    expect(accepts('netrestrict', '10.0.0.0')).toBe(false);
    expect(accepts('verbosity', '5')).toBe(true);
    expect(accepts('verbosity', '6')).toBe(false);
    expect(accepts('rpc.txfeecap', '0.5')).toBe(true);
    expect(accepts('rpc.txfeecap', '-1')).toBe(false);
    expect(accepts('synctarget', `0x${'cd'.repeat(32)}`)).toBe(true);
    expect(accepts('synctarget', 'cd'.repeat(32))).toBe(false);
    expect(accepts('rollup.sequencerhttp', 'https://mainnet-sequencer.optimism.io')).toBe(true);
    expect(accepts('rollup.sequencerhttp', 'ws://x:1')).toBe(false);
    // geth dials --remotedb as any RPC endpoint: http(s)://, ws(s)://, or an IPC socket path.
    expect(accepts('remotedb', 'wss://db.example:1')).toBe(true);
    expect(accepts('remotedb', '/var/run/tern-exec.ipc')).toBe(true);
    expect(accepts('stack-network', 'op-mainnet')).toBe(true);
    expect(accepts('stack-network', 'nonexistent-mainnet')).toBe(false);
    expect(tryParse('header', 'Authorization: Bearer x')).toEqual({ ok: true, value: [['Authorization', 'Bearer x']] });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Cross-check against the seed document: every flag row of its tables and every fork override it names.

const SEED = '/work/shared/seeds/001_e9e2bb5f7a07c50d.txt';

interface SeedRow {
  names: string[];
  defaultText: string;
  section: string;
}

function seedRows(text: string): SeedRow[] {
  const rows: SeedRow[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    const heading = /^### (2\.\d+) /.exec(line);
    if (heading) section = heading[1] as string;
    if (!line.startsWith('| `--')) continue;
    const cells = line.split('|').map((c) => c.trim());
    const names = [...(cells[1] as string).matchAll(/`--([^`]+)`/g)].map((m) => m[1] as string);
    rows.push({ names, defaultText: (cells[3] as string).replace(/`/g, ''), section });
  }
  return rows;
}

describe('EXEC_PROGRAM against the seed document', () => {
  const text = readFileSync(SEED, 'utf8');
  const rows = seedRows(text);
  const overrides = [...(/Fork override flags[^\n]*/.exec(text)?.[0] ?? '').matchAll(/`--(override\.[a-z]+)`/g)].map(
    (m) => m[1] as string,
  );

  it('finds the seed tables', () => {
    expect(rows.length).toBeGreaterThan(100);
    expect(overrides.length).toBe(11);
  });

  it('has every seed flag, with its aliases, and nothing else but the named extensions', () => {
    // tern's own additions, documented in --help and the README: where --dev serves its beacon API.
    const extensions = ['dev.beacon.addr', 'dev.beacon.port'];
    const seedNames = new Set<string>(['help', 'version', 'header', ...overrides, ...extensions]);
    for (const row of rows) {
      const [name, ...aliases] = row.names as [string, ...string[]];
      seedNames.add(name);
      expect(flag(name).aliases ?? [], name).toEqual(aliases);
    }
    expect(new Set(FLAGS.map((f) => f.name))).toEqual(seedNames);
    expect(FLAGS.length).toBe(seedNames.size);
  });

  it('has the seed default of every flag', () => {
    for (const row of rows) {
      const spec = flag(row.names[0] as string);
      const col = row.defaultText;
      if (col === 'none') {
        expect(spec.default, spec.name).toBeUndefined();
        expect(spec.defaultNote, spec.name).toBeUndefined();
      } else if (spec.defaultNote !== undefined) {
        expect(spec.defaultNote, spec.name).toBe(col);
      } else {
        // A value, possibly followed by a parenthetical remark such as "(about a year)".
        const value = col.replace(/\s*\([^)]*\)$/, '');
        expect(parseValue(spec, value), spec.name).toEqual(spec.default);
      }
    }
    for (const name of overrides) {
      expect(flag(name).kind, name).toBe('uint');
      expect(flag(name).default, name).toBe(0);
    }
  });

  it('files each flag under its seed section', () => {
    const bySection: Record<string, string> = {
      '2.4': 'Account management',
      '2.5': 'RPC and API',
      '2.6': 'Development chain',
      '2.7': 'Chain and network',
      '2.8': 'Gas price oracle',
      '2.9': 'Logging and debugging',
      '2.10': 'Metrics',
      '2.11': 'Peer-to-peer',
      '2.12': 'Performance',
      '2.13': 'Rollup',
      '2.14': 'State and history',
      '2.15': 'Transaction pool',
    };
    for (const row of rows) {
      const name = row.names[0] as string;
      const want = name === 'config' ? 'Miscellaneous' : bySection[row.section];
      expect(flag(name).category, name).toBe(want);
    }
    for (const name of overrides) expect(flag(name).category, name).toBe('Chain and network');
  });
});

describe('--cache.database, --cache.snapshot, --snapshot, --fdlimit', () => {
  const parse = (argv: string[]) => parseSettings(EXEC_PROGRAM, { argv, env: {} });

  it('are built: given values are accepted, not refused', () => {
    const s = parse(['--cache.database=40', '--cache.snapshot=20', '--snapshot=false', '--fdlimit=4096']);
    expect(() => assertSupported(s)).not.toThrow();
    expect(unsupportedSettings(s)).toEqual([]);
    expect([s.get('cache.database'), s.get('cache.snapshot'), s.get('snapshot'), s.get('fdlimit')]).toEqual([
      40,
      20,
      false,
      4096,
    ]);
    for (const name of ['cache.database', 'cache.snapshot', 'snapshot', 'fdlimit'])
      expect(flag(name).implemented).toBe(true);
  });

  it('default to geth values (fdlimit: unset, i.e. the hard limit) and go into dumpconfig', () => {
    const s = parse(['dumpconfig']);
    expect([s.get('cache.database'), s.get('cache.snapshot'), s.get('snapshot'), s.get('fdlimit')]).toEqual([
      50,
      10,
      true,
      undefined,
    ]);
    const dumped = dumpTomlConfig(parse(['--cache.database=40', '--snapshot=false', '--fdlimit=4096', 'dumpconfig']));
    expect(dumped).toMatch(/CacheDatabase = 40/);
    expect(dumped).toMatch(/CacheSnapshot = 10/);
    expect(dumped).toMatch(/Snapshot = false/);
    expect(dumped).toMatch(/FDLimit = 4096/);
    expect(dumpTomlConfig(s)).not.toMatch(/FDLimit/);
  });
});
