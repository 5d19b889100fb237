// tern-exec flags, section 2.1 of the seed: conventions (meta flags).
import type { FlagSpec } from '../flag.js';
import { MISC } from './shared.js';

export const META_FLAGS: readonly FlagSpec[] = [
  {
    name: 'help',
    aliases: ['h'],
    kind: 'bool',
    default: false,
    help: 'Show help',
    category: MISC,
    implemented: true,
  },
  {
    name: 'version',
    aliases: ['v'],
    kind: 'bool',
    default: false,
    help: 'Print the version',
    category: MISC,
    implemented: true,
  },
  {
    name: 'header',
    aliases: ['H'],
    kind: 'header',
    help: 'Custom header ("Name: Value") sent to the RPC server by --remotedb and the attach console; may be given several times',
    category: MISC,
    repeatable: true,
    implemented: true,
  },
  {
    name: 'config',
    kind: 'path',
    help: 'TOML configuration file (a template is printed by the dumpconfig command)',
    category: MISC,
    implemented: true,
  },
];
