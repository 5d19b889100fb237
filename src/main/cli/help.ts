// --help text and the README's flag reference, both generated from a program's flag table.
import { envVarName, type FlagSpec, type ProgramSpec } from './flag.js';
import { formatValue } from './values.js';

/** How the default reads in help and docs: the value, the seed's words for it, or nothing. */
export function describeDefault(spec: FlagSpec): string | undefined {
  if (spec.default !== undefined) {
    const text = formatValue(spec, spec.default);
    return spec.kind === 'bool' ||
      spec.kind === 'int' ||
      spec.kind === 'uint' ||
      spec.kind === 'float' ||
      spec.kind === 'port'
      ? text
      : JSON.stringify(text);
  }
  return spec.defaultNote;
}

function placeholder(spec: FlagSpec): string {
  switch (spec.kind) {
    case 'bool':
      return '';
    case 'duration':
      return ' duration';
    case 'port':
      return ' port';
    case 'url':
      return ' url';
    case 'path':
      return ' path';
    case 'enum':
      return ' value';
    case 'int':
    case 'uint':
    case 'float':
      return ' n';
    default:
      return ' value';
  }
}

function flagNames(spec: FlagSpec): string {
  const names = [spec.name, ...(spec.aliases ?? [])].map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
  return `${names.join(', ')}${placeholder(spec)}`;
}

function flagHelp(program: ProgramSpec, spec: FlagSpec): string {
  const parts = [spec.help];
  if (spec.kind === 'enum' && spec.values && spec.values.length <= 12)
    parts.push(`(one of: ${spec.values.join(', ')})`);
  if (spec.kind === 'enum' && spec.values && spec.values.length > 12) parts.push(`(${spec.values.length} values)`);
  const def = describeDefault(spec);
  if (def !== undefined) parts.push(`(default: ${def})`);
  if (!spec.implemented) parts.push('[not yet supported]');
  parts.push(`[$${envVarName(program.envPrefix, spec.name)}]`);
  return parts.join(' ');
}

function categories(program: ProgramSpec): Map<string, FlagSpec[]> {
  const out = new Map<string, FlagSpec[]>();
  for (const spec of program.flags) {
    const list = out.get(spec.category) ?? [];
    list.push(spec);
    out.set(spec.category, list);
  }
  return out;
}

export function helpText(program: ProgramSpec, version: string): string {
  const lines: string[] = [];
  lines.push('NAME:', `   ${program.program} - ${program.summary}`, '');
  const usage =
    program.subcommands.length > 0
      ? `${program.program} [command] [flags] [arguments...]`
      : `${program.program} [flags]`;
  lines.push('USAGE:', `   ${usage}`, '', 'VERSION:', `   ${version}`, '');
  if (program.subcommands.length > 0) {
    lines.push('COMMANDS:');
    const width = Math.max(...program.subcommands.map((s) => `${s.name} ${s.args}`.length));
    for (const s of program.subcommands) {
      const note = s.implemented ? '' : ' [not yet supported]';
      lines.push(`   ${`${s.name} ${s.args}`.padEnd(width)}   ${s.help}${note}`);
    }
    lines.push('');
  }
  lines.push('FLAGS:');
  for (const [category, specs] of categories(program)) {
    lines.push('', `  ${category.toUpperCase()}`, '');
    const width = Math.min(44, Math.max(...specs.map((s) => flagNames(s).length)));
    for (const spec of specs) {
      const names = flagNames(spec);
      const pad = names.length > width ? `\n   ${' '.repeat(width)}` : ' '.repeat(width - names.length);
      lines.push(`   ${names}${pad}   ${flagHelp(program, spec)}`);
    }
  }
  lines.push(
    '',
    `Every flag can also be set by the environment variable shown after it${program.tomlConfig ? ', or in the TOML file given by --config (see dumpconfig)' : ''}.`,
    'Flags marked [not yet supported] are parsed and validated; setting one to a non-default value stops the program with an error.',
  );
  return `${lines.join('\n')}\n`;
}

function mdEscape(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The README's flag reference for one program, as Markdown. */
export function flagReferenceMarkdown(program: ProgramSpec): string {
  const out: string[] = [`### ${program.program}`, ''];
  if (program.subcommands.length > 0) {
    out.push('| command | arguments | what it does | status |', '|---|---|---|---|');
    for (const s of program.subcommands) {
      out.push(`| \`${s.name}\` | \`${s.args || '—'}\` | ${mdEscape(s.help)} | ${s.implemented ? 'yes' : 'not yet'} |`);
    }
    out.push('');
  }
  for (const [category, specs] of categories(program)) {
    out.push(`#### ${category}`, '', '| flag | default | env | meaning | built |', '|---|---|---|---|---|');
    for (const spec of specs) {
      const names = [spec.name, ...(spec.aliases ?? [])]
        .map((n) => `\`${n.length === 1 ? '-' : '--'}${n}\``)
        .join(', ');
      const def = describeDefault(spec);
      out.push(
        `| ${names} | ${def === undefined ? '' : mdEscape(def.startsWith('"') ? `\`${JSON.parse(def)}\`` : def)} | \`${envVarName(program.envPrefix, spec.name)}\` | ${mdEscape(spec.help)} | ${spec.implemented ? 'yes' : 'not yet'} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
