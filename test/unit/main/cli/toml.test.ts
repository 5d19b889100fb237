import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import { parseSettings, type Settings } from '../../../../src/main/cli/parse.js';
import { dumpTomlConfig, loadTomlConfig } from '../../../../src/main/cli/toml.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-toml-'));
const loadToml = (path: string) => loadTomlConfig(EXEC_PROGRAM, path);
const settings = (argv: string[]): Settings => parseSettings(EXEC_PROGRAM, { argv, env: {}, loadToml });

function tomlFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('tern-exec TOML config', () => {
  it('round-trips dumpconfig through --config to the same settings', () => {
    const argv = [
      '--http',
      '--http.port=9999',
      '--http.api=eth,net,web3',
      '--txpool.lifetime=2h30m0s',
      '--txpool.locals=0x00000000000000000000000000000000000000aa',
      '--rpc.txfeecap=0.5',
      '--metrics.tsdb.tags=host=a,region=b',
      '--vmtrace.jsonconfig={"a":1}',
      '--netrestrict=10.0.0.0/8',
      '--nat=extip:1.2.3.4',
      '--verbosity=5',
      '--override.ecotone=1700000000',
      'dumpconfig',
    ];
    const first = settings(argv);
    const dumped = dumpTomlConfig(first);
    const path = tomlFile('dump.toml', dumped);
    const second = settings(['--config', path, 'dumpconfig']);
    for (const [spec, value] of first.entries()) {
      if (!spec.toml) continue;
      expect([spec.name, second.get(spec.name)]).toEqual([spec.name, value]);
    }
    expect(second.source('http.port')).toBe('toml');
    expect(dumpTomlConfig(second)).toBe(dumped);
  });

  it('lets flags and environment override the file', () => {
    const path = tomlFile('port.toml', '[Node]\nHTTPPort = 1111\n');
    expect(settings(['--config', path]).get('http.port')).toBe(1111);
    expect(settings(['--config', path, '--http.port=2222']).get('http.port')).toBe(2222);
    const viaEnv = parseSettings(EXEC_PROGRAM, {
      argv: [],
      env: { TERN_EXEC_CONFIG: path, TERN_EXEC_HTTP_PORT: '3333' },
      loadToml,
    });
    expect(viaEnv.get('http.port')).toBe(3333);
  });

  it("reads geth's integer-nanosecond durations", () => {
    const spec = EXEC_PROGRAM.flags.find((f) => f.name === 'txpool.lifetime');
    const [section, ...rest] = String(spec?.toml).split('.');
    const key = rest.pop() as string;
    const path = tomlFile('ns.toml', `[${[section, ...rest].join('.')}]\n${key} = 10800000000000\n`);
    expect(settings(['--config', path]).get('txpool.lifetime')).toBe(10_800_000);
  });

  it('rejects unknown keys, wrong types, bad values and bad TOML, naming file and key', () => {
    expect(() => settings(['--config', tomlFile('unknown.toml', '[Node]\nHTTPPorrt = 1\n')])).toThrow(
      /unknown\.toml: unknown key Node\.HTTPPorrt/,
    );
    expect(() => settings(['--config', tomlFile('type.toml', '[Node]\nHTTPPort = "x"\n')])).toThrow(
      /type\.toml: invalid value for Node\.HTTPPort \(flag --http\.port\): expected a number/,
    );
    expect(() => settings(['--config', tomlFile('range.toml', '[Node]\nHTTPPort = 70000\n')])).toThrow(/out of range/);
    expect(() => settings(['--config', tomlFile('bad.toml', '[Node\nx=1')])).toThrow(/is not valid TOML/);
    expect(() => settings(['--config', join(dir, 'missing.toml')])).toThrow(
      /cannot read config file .*missing\.toml: ENOENT/,
    );
  });
});
