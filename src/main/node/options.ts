// tern-node's options as one typed record, composed of the options each module declares. cli/nodeOptions.ts builds
// it from the parsed command line once; from there on no module reads a flag by its name.
import type { LoggerOptions } from '../common/logger/index.js';
import type { NodeObservabilityOptions } from '../common/metrics/nodeObservability.js';
import type { ReplicaOptions } from './driver/replica.js';

export interface NodeOptions {
  logger: LoggerOptions;
  observability: NodeObservabilityOptions;
  /** --l2.jwt-secret (default: jwt.txt in the working directory); created when missing. Unused in tern-pair. */
  jwtSecretPath: string;
  replica: ReplicaOptions;
}
