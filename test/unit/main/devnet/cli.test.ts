import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ProgramSpec } from '../../../../src/main/cli/flag.js';
import { builtArgs, detectCapabilities, unbuiltFlags } from '../../../../src/main/devnet/capabilities.js';
import { HELP, main, parseDevnetArgs } from '../../../../src/main/devnet/cli.js';

describe('tern-devnet command line', () => {
  it('has defaults for everything and resolves the programs under bin/', () => {
    const o = parseDevnetArgs(['--workdir', '/tmp/x-devnet', '--replicas', '2', '--da', 'calldata', '--jovian']);
    if (o === 'help') throw new Error('unexpected help');
    expect(o.workdir).toBe('/tmp/x-devnet');
    expect(o.existing).toBe('fail');
    expect(o.replicas).toBe(2);
    expect(o.blockTime).toBe(2);
    expect(o.dataAvailability).toBe('calldata');
    expect(o.jovian).toBe(true);
    expect(o.l2ChainId).toBe(901n);
    expect(o.programs.exec[1]).toMatch(/bin\/tern-exec\.js$/);
    expect(o.programs.batcher[1]).toMatch(/bin\/tern-batcher\.js$/);
    expect(o.engine).toBe('http');
    const ip = parseDevnetArgs(['--workdir', '/tmp/x-devnet', '--engine', 'in-process']);
    if (ip === 'help') throw new Error('unexpected help');
    expect(ip.engine).toBe('in-process');
    expect(ip.programs.pair?.[1]).toMatch(/bin\/tern-pair\.js$/);
    const d = parseDevnetArgs([]);
    if (d === 'help') throw new Error('unexpected help');
    expect(d.workdir).toMatch(/tern-devnet-/);
    rmSync(d.workdir, { recursive: true, force: true });
    expect(parseDevnetArgs(['--help'])).toBe('help');
  });

  it('--isthmus-at/--jovian-at schedule the upgrades in L2 blocks, refusing impossible schedules', () => {
    const o = parseDevnetArgs(['--workdir', '/tmp/x-devnet', '--isthmus-at', '3', '--jovian-at', '5']);
    if (o === 'help') throw new Error('unexpected help');
    expect(o.isthmusAt).toBe(3);
    expect(o.jovianAt).toBe(5);
    expect(o.jovian).toBe(false);
    const bad = (args: string[]) => () => parseDevnetArgs(['--workdir', '/tmp/x-devnet', ...args]);
    expect(bad(['--jovian-at', '5'])).toThrow(/--jovian-at needs --isthmus-at/);
    expect(bad(['--isthmus-at', '5', '--jovian-at', '3'])).toThrow(/must not be before/);
    expect(bad(['--isthmus-at', '0'])).toThrow(/--isthmus-at must be an integer ≥ 1/);
    expect(bad(['--jovian', '--isthmus-at', '3'])).toThrow(/excludes/);
    expect(HELP).toContain('--isthmus-at N');
  });

  it('--l1 anvil runs the installed anvil binary', () => {
    const o = parseDevnetArgs(['--workdir', '/tmp/x-devnet', '--l1', 'anvil']);
    if (o === 'help') throw new Error('unexpected help');
    expect(o.l1Program).toBe('anvil');
    expect(o.programs.anvil?.[0]).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
    const d = parseDevnetArgs(['--workdir', '/tmp/x-devnet']);
    if (d === 'help') throw new Error('unexpected help');
    expect(d.l1Program).toBe('tern-exec');
  });

  it('rejects bad or unsupported choices with exit status 2', async () => {
    for (const [args, msg] of [
      [['--clean', '--reuse'], /exclude/],
      [['--l1', 'anvil', '--reuse'], /--reuse cannot be used with --l1 anvil/],
      [['--l1', 'besu'], /tern-exec or anvil/],
      [['--engine', 'tcp'], /http or in-process/],
      [['--da', 'ipfs'], /blobs, calldata or altda/],
      [['--replicas=-1'], /integer/],
      [['--block-time', '0'], /integer/],
      [['--bogus'], /Unknown option/],
    ] as const) {
      const lines: string[] = [];
      expect(await main([...args], (l) => lines.push(l))).toBe(2);
      expect(lines.join('\n')).toMatch(msg);
    }
    const lines: string[] = [];
    expect(await main(['-h'], (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toBe(HELP);
  });
});

describe('capabilities', () => {
  const spec = {
    flags: [
      { name: 'a', implemented: true },
      { name: 'b', implemented: false },
    ],
  } as unknown as ProgramSpec;
  it('names unbuilt and unknown flags', () => {
    expect(unbuiltFlags(spec, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });
  it('keeps only built optional flags', () => {
    const caps = { missing: () => [], built: (_p: string, f: string) => f !== 'x' };
    expect(builtArgs(caps, 'node', [['x', '1'], ['y', '2'], ['z']])).toEqual(['--y=2', '--z']);
  });
  it('reads the real flag tables (tern-exec --dev is built)', () => {
    const caps = detectCapabilities();
    expect(caps.missing('l1')).toEqual([]);
    expect(caps.built('exec', 'ipcdisable')).toBe(true);
    expect(caps.built('exec', 'no-such-flag')).toBe(false);
  });
});
