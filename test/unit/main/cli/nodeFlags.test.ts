import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FlagSpec } from '../../../../src/main/cli/flag.js';
import { NETWORK_NAMES } from '../../../../src/main/cli/networks.js';
import { NODE_PROGRAM } from '../../../../src/main/cli/nodeFlags.js';
import { parseValue, sameValue } from '../../../../src/main/cli/values.js';
import { registryNetworkNames } from '../../../../src/main/networks/registry.js';

const FLAGS = NODE_PROGRAM.flags;
const byName = new Map(FLAGS.map((f) => [f.name, f]));

const NUMERIC = new Set(['int', 'uint', 'float', 'duration', 'port']);
const STRING = new Set(['string', 'path', 'url', 'ip', 'host', 'enum', 'hex32', 'address', 'hash']);
const STRING_ARRAY = new Set(['urlList', 'list', 'enumList', 'cidrList']);
const PAIRS = new Set(['keyValue', 'header']);

function hasKindType(spec: FlagSpec, value: unknown): boolean {
  if (spec.kind === 'bool') return typeof value === 'boolean';
  if (NUMERIC.has(spec.kind)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    return spec.kind === 'float' || spec.kind === 'duration' || Number.isSafeInteger(value);
  }
  if (STRING.has(spec.kind)) return typeof value === 'string';
  if (STRING_ARRAY.has(spec.kind)) return Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (PAIRS.has(spec.kind)) {
    return Array.isArray(value) && value.every((p) => Array.isArray(p) && p.length === 2);
  }
  return spec.kind === 'json';
}

describe('NODE_PROGRAM', () => {
  it('describes tern-node', () => {
    expect(NODE_PROGRAM.program).toBe('tern-node');
    expect(NODE_PROGRAM.envPrefix).toBe('TERN_NODE');
    expect(NODE_PROGRAM.tomlConfig).toBe(false);
    expect(NODE_PROGRAM.subcommands).toEqual([]);
  });

  it('has no duplicate names or aliases', () => {
    const seen = new Set<string>();
    for (const f of FLAGS) {
      for (const n of [f.name, ...(f.aliases ?? [])]) {
        expect(seen.has(n), `duplicate flag name or alias ${n}`).toBe(false);
        seen.add(n);
      }
    }
  });

  it('has only the aliases the seed states', () => {
    const withAliases = FLAGS.filter((f) => f.aliases && f.aliases.length > 0).map((f) => [f.name, f.aliases]);
    expect(withAliases).toEqual([
      ['help', ['h']],
      ['version', ['v']],
    ]);
  });

  it('gives enum and enumList flags values, and enum defaults among them', () => {
    for (const f of FLAGS) {
      if (f.kind !== 'enum' && f.kind !== 'enumList') continue;
      expect(f.values?.length, f.name).toBeGreaterThan(0);
      expect(new Set(f.values).size, `${f.name} has duplicate values`).toBe(f.values?.length);
      if (f.default !== undefined) expect(f.values, f.name).toContain(f.default);
    }
  });

  it('gives every default the JS type of its kind, within bounds and passing its check', () => {
    for (const f of FLAGS) {
      if (f.default === undefined) continue;
      expect(hasKindType(f, f.default), `${f.name} default ${String(f.default)} for kind ${f.kind}`).toBe(true);
      if (typeof f.default === 'number') {
        if (f.min !== undefined) expect(f.default, f.name).toBeGreaterThanOrEqual(f.min);
        if (f.max !== undefined) expect(f.default, f.name).toBeLessThanOrEqual(f.max);
      }
      expect(f.check?.(f.default), f.name).toBeUndefined();
    }
  });

  it('round-trips every default through its own kind parser', () => {
    for (const f of FLAGS) {
      if (f.default === undefined || f.kind === 'duration') continue;
      expect(sameValue(parseValue(f, String(f.default)), f.default), f.name).toBe(true);
    }
  });

  it('uses schemes only on URL kinds, values only on enum kinds', () => {
    for (const f of FLAGS) {
      if (f.schemes) expect(['url', 'urlList'], f.name).toContain(f.kind);
      if (f.kind === 'url' || f.kind === 'urlList') expect(f.schemes?.length, f.name).toBeGreaterThan(0);
      if (f.values) expect(['enum', 'enumList'], f.name).toContain(f.kind);
    }
  });

  it('has the ten fork overrides as uint with default 0', () => {
    const overrides = FLAGS.filter((f) => f.name.startsWith('override.'));
    expect(overrides.map((f) => f.name)).toEqual(
      [
        'canyon',
        'delta',
        'ecotone',
        'fjord',
        'granite',
        'holocene',
        'isthmus',
        'interop',
        'jovian',
        'pectrablobschedule',
      ].map((n) => `override.${n}`),
    );
    for (const f of overrides) {
      expect(f.kind).toBe('uint');
      expect(f.default).toBe(0);
    }
  });

  it('validates list items of bootnodes and static peers, and a single beacon header', () => {
    const boot = byName.get('p2p.bootnodes') as FlagSpec;
    expect(() => parseValue(boot, 'enr:-abc,enr:-def')).not.toThrow();
    // op-node also takes enode:// URLs (its default list mixes both).
    expect(() => parseValue(boot, 'enode://abc@1.2.3.4:30303')).not.toThrow();
    expect(() => parseValue(boot, 'http://1.2.3.4:30303')).toThrow();
    const stat = byName.get('p2p.static') as FlagSpec;
    expect(() => parseValue(stat, '/ip4/1.2.3.4/tcp/9222/p2p/16Uiu2HAm')).not.toThrow();
    expect(() => parseValue(stat, '/ip4/1.2.3.4/tcp/9222')).toThrow();
    expect(() => parseValue(stat, 'ip4/1.2.3.4/tcp/9222/p2p/16Uiu2HAm')).toThrow();
    const header = byName.get('l1.beacon-header') as FlagSpec;
    expect(parseValue(header, 'X-Key: Value')).toEqual([['X-Key', 'Value']]);
    // One header only: a comma belongs to the value, even from the environment.
    expect(parseValue(header, 'A: 1,B: 2', true)).toEqual([['A', '1,B: 2']]);
    const signerHeader = byName.get('signer.header') as FlagSpec;
    expect(signerHeader.repeatable).toBe(true);
    expect(parseValue(signerHeader, 'a=1,b=2', true)).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('enforces the layer-1 request bounds', () => {
    expect(() => parseValue(byName.get('l1.max-concurrency') as FlagSpec, '0')).toThrow();
    expect(() => parseValue(byName.get('l1.rpc-max-batch-size') as FlagSpec, '0')).toThrow();
    expect(() => parseValue(byName.get('l1.rpc-rate-limit') as FlagSpec, '-1')).toThrow();
    expect(parseValue(byName.get('l1.rpc-rate-limit') as FlagSpec, '2.5')).toBe(2.5);
  });
});

describe('NETWORK_NAMES', () => {
  it('has 60 distinct names including op-sepolia and op-mainnet', () => {
    expect(new Set(NETWORK_NAMES).size).toBe(NETWORK_NAMES.length);
    expect(NETWORK_NAMES.length).toBe(60);
    expect(NETWORK_NAMES).toContain('op-sepolia');
    expect(NETWORK_NAMES).toContain('op-mainnet');
    expect(NETWORK_NAMES).toContain('base-mainnet');
    expect(NETWORK_NAMES).toContain('base-sepolia');
  });

  it('is exactly the bundled registry networks', () => {
    expect(registryNetworkNames()).toEqual(NETWORK_NAMES);
  });

  it('is what --network accepts', () => {
    expect(byName.get('network')?.values).toBe(NETWORK_NAMES);
  });
});

// Cross-check against the seed document when it is available in this checkout's environment.
const SEED = '/work/shared/seeds/000_5372cdd0ed1b9542.txt';

describe('against the seed', () => {
  const text = readFileSync(SEED, 'utf8');

  it('names every seed flag once in the table, and no other', () => {
    const seedNames = new Set([...text.matchAll(/`--([a-z0-9][a-z0-9.-]*)/g)].map((m) => m[1] as string));
    const tableNames = new Set(FLAGS.map((f) => f.name));
    expect([...seedNames].filter((n) => !tableNames.has(n))).toEqual([]);
    expect([...tableNames].filter((n) => !seedNames.has(n))).toEqual([]);
  });

  it('matches every default column of sections 2.4 to 2.14', () => {
    const start = text.indexOf('### 2.4');
    const end = text.indexOf('## 3.');
    let rows = 0;
    for (const line of text.slice(start, end).split('\n')) {
      const m = /^\| `--([^`]+)` \|[^|]*\| ([^|]+) \|/.exec(line);
      if (!m) continue;
      rows++;
      const name = m[1] as string;
      const column = (m[2] as string).trim().replace(/`/g, '');
      const spec = byName.get(name);
      expect(spec, name).toBeDefined();
      if (!spec) continue;
      if (column === 'none') {
        expect(spec.default, name).toBeUndefined();
        expect(spec.defaultNote, name).toBeUndefined();
        continue;
      }
      let parsed: unknown;
      let ok = true;
      try {
        parsed = parseValue(spec, column);
      } catch {
        ok = false;
      }
      if (ok && spec.defaultNote === undefined) {
        expect(sameValue(parsed, spec.default), `${name}: ${column}`).toBe(true);
      } else {
        expect(spec.defaultNote, name).toBe(column);
      }
    }
    expect(rows).toBeGreaterThan(90);
  });
});
