// Keeps the README's generated sections (flag reference, "Not yet supported") equal to the flag tables.
// `node dist/src/main/cli/docs.js --write` rewrites them; `--check` exits 1 when they drifted (CI runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../common/paths.js';
import { EXEC_PROGRAM } from './execFlags.js';
import type { ProgramSpec } from './flag.js';
import { flagReferenceMarkdown } from './help.js';
import { NODE_PROGRAM } from './nodeFlags.js';

export const PROGRAMS: readonly ProgramSpec[] = [NODE_PROGRAM, EXEC_PROGRAM];

function unsupportedMarkdown(programs: readonly ProgramSpec[]): string {
  const out = ['| program | area | flags and commands parsed and validated, but refused when set |', '|---|---|---|'];
  for (const program of programs) {
    const commands = program.subcommands.filter((s) => !s.implemented).map((s) => `\`${s.name}\``);
    if (commands.length > 0) out.push(`| ${program.program} | commands | ${commands.join(', ')} |`);
    const byCategory = new Map<string, string[]>();
    for (const spec of program.flags) {
      if (spec.implemented) continue;
      const list = byCategory.get(spec.category) ?? [];
      list.push(`\`--${spec.name}\``);
      byCategory.set(spec.category, list);
    }
    for (const [category, names] of byCategory) out.push(`| ${program.program} | ${category} | ${names.join(', ')} |`);
  }
  return out.join('\n');
}

function replaceSection(text: string, marker: string, body: string): string {
  const begin = `<!-- ${marker}:begin (generated from the flag tables: npm run docs:flags) -->`;
  const end = `<!-- ${marker}:end -->`;
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`README has no ${marker} section (markers "${begin}" … "${end}")`);
  return `${text.slice(0, i + begin.length)}\n\n${body.trim()}\n\n${text.slice(j)}`;
}

/** The README text with its generated sections brought up to date. */
export function renderReadme(current: string): string {
  let text = replaceSection(current, 'flags', PROGRAMS.map(flagReferenceMarkdown).join('\n'));
  text = replaceSection(text, 'unsupported', unsupportedMarkdown(PROGRAMS));
  return text;
}

export function readmePath(): string {
  return `${projectRoot()}/README.md`;
}

function main(argv: readonly string[]): number {
  const path = readmePath();
  const current = readFileSync(path, 'utf8');
  const next = renderReadme(current);
  if (argv.includes('--write')) {
    if (next !== current) writeFileSync(path, next);
    console.log(next === current ? 'README flag reference is up to date' : 'README flag reference rewritten');
    return 0;
  }
  if (next !== current) {
    console.error('README flag reference is out of date: run `npm run docs:flags`');
    return 1;
  }
  console.log('README flag reference is up to date');
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
