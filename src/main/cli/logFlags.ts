// The --log.* flags tern-node and tern-batcher share (op-node's and op-batcher's, both from op-service/log): one
// definition, so both programs parse them alike and their --help and flag reference say the same.
import { LOG_FORMATS, LOG_LEVELS } from '../common/logger/interface.js';
import type { FlagSpec } from './flag.js';

/** The --help and README heading of the logging flags. */
export const LOGGING = 'Logging';

export const LOGGING_FLAGS: readonly FlagSpec[] = [
  {
    name: 'log.color',
    kind: 'bool',
    default: false,
    help: 'Color the log output in terminal mode.',
    category: LOGGING,
    implemented: true,
  },
  {
    name: 'log.format',
    kind: 'enum',
    values: LOG_FORMATS,
    default: 'text',
    help: 'Log output format.',
    category: LOGGING,
    implemented: true,
  },
  {
    name: 'log.level',
    kind: 'enum',
    values: [...LOG_LEVELS, 'trace', 'crit'],
    default: 'info',
    help: 'Lowest level logged: silent, error, warn, info, debug or detail (trace is the same as detail, crit the same as error).',
    category: LOGGING,
    implemented: true,
  },
  {
    name: 'log.pid',
    kind: 'bool',
    default: false,
    help: 'Show the process id in each log line.',
    category: LOGGING,
    implemented: true,
  },
];
