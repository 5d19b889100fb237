// Every flag named in the seed documents (../shared/seeds) must be in the program's table, under the same
// name or alias, with the seed's default. Reads the seeds themselves, so a flag added to a seed fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../src/main/cli/execFlags.js';
import type { FlagSpec, ProgramSpec } from '../../../../src/main/cli/flag.js';
import { describeDefault, helpText } from '../../../../src/main/cli/help.js';
import { NODE_PROGRAM } from '../../../../src/main/cli/nodeFlags.js';
import { parseValue, sameValue } from '../../../../src/main/cli/values.js';
import { SEEDS } from '../../../helpers/paths.js';

interface SeedFlag {
  names: string[];
  defaultText: string;
}

function flagNamesIn(text: string): string[] {
  return [...text.matchAll(/`(--?[a-zA-Z0-9][a-zA-Z0-9.-]*)/g)].map((m) => (m[1] as string).replace(/^--?/, ''));
}

/** Flags with a default: rows of the seed's flag tables, the fork-override lists, and the help/version lines. */
function seedFlags(text: string): SeedFlag[] {
  const out: SeedFlag[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | `--flag` | type | default | meaning |
    if (cells.length === 6 && /^`--[a-z]/.test(cells[1] as string)) {
      out.push({ names: flagNamesIn(cells[1] as string), defaultText: (cells[3] as string).replace(/`/g, '').trim() });
    }
    if (/override/i.test(line) && /defaults? to 0|default 0/.test(line)) {
      for (const name of flagNamesIn(line.split(':').slice(1).join(':'))) {
        if (name.startsWith('override.')) out.push({ names: [name], defaultText: '0' });
      }
    }
  }
  for (const line of text.split('\n')) {
    const m = /`--(help|version)` or `-([hv])` prints? [a-z]+ \(default (false)\)/.exec(line);
    if (m) out.push({ names: [m[1] as string, m[2] as string], defaultText: m[3] as string });
  }
  const help = /`--help` or `-h`/.test(text);
  const version = /`--version` or `-v`/.test(text);
  if (help && !out.some((f) => f.names.includes('help'))) out.push({ names: ['help', 'h'], defaultText: 'false' });
  if (version && !out.some((f) => f.names.includes('version')))
    out.push({ names: ['version', 'v'], defaultText: 'false' });
  return out;
}

function lookup(program: ProgramSpec): Map<string, FlagSpec> {
  const m = new Map<string, FlagSpec>();
  for (const f of program.flags) for (const n of [f.name, ...(f.aliases ?? [])]) m.set(n, f);
  return m;
}

function defaultMatches(spec: FlagSpec, seedText: string): boolean {
  if (/^none$/i.test(seedText)) return spec.default === undefined && spec.defaultNote === undefined;
  try {
    if (sameValue(parseValue(spec, seedText), spec.default)) return true;
  } catch {
    // not a plain value: the seed describes the default in words
  }
  return spec.defaultNote === seedText;
}

describe.each([
  ['tern-node', '000_5372cdd0ed1b9542.txt', NODE_PROGRAM],
  ['tern-exec', '001_e9e2bb5f7a07c50d.txt', EXEC_PROGRAM],
] as const)('%s flags against its seed', (_name, file, program) => {
  const text = readFileSync(join(SEEDS, file), 'utf8');
  const table = lookup(program);
  const flags = seedFlags(text);

  it('finds the seed flag tables (sanity check of this test)', () => {
    expect(flags.length).toBeGreaterThan(80);
  });

  it('declares every flag named anywhere in the seed', () => {
    // "the consensus node's `--network`" names the other program's flag.
    const own = text.replace(/node's `--[a-z.-]+`/g, '');
    const named = new Set(flagNamesIn(own).map((n) => n.split('=')[0] as string));
    const missing = [...named].filter((n) => !table.has(n));
    expect(missing).toEqual([]);
  });

  it('declares the seed aliases on the same flag', () => {
    for (const f of flags) {
      const specs = new Set(f.names.map((n) => table.get(n)?.name));
      expect([f.names.join(' / '), specs.size]).toEqual([f.names.join(' / '), 1]);
    }
  });

  it('uses the seed default for every flag', () => {
    const wrong = flags
      .filter((f) => {
        const spec = table.get(f.names[0] as string);
        return spec === undefined || !defaultMatches(spec, f.defaultText);
      })
      .map(
        (f) =>
          `--${f.names[0]}: seed says "${f.defaultText}", table has ${JSON.stringify(table.get(f.names[0] as string)?.default)} / note ${JSON.stringify(table.get(f.names[0] as string)?.defaultNote)}`,
      );
    expect(wrong).toEqual([]);
  });

  it('lists every flag with its default in --help', () => {
    const help = helpText(program, 'test');
    for (const spec of program.flags) {
      expect(help).toContain(spec.name.length === 1 ? `-${spec.name}` : `--${spec.name}`);
      const def = describeDefault(spec);
      if (def !== undefined) expect(help).toContain(`(default: ${def})`);
    }
  });
});
