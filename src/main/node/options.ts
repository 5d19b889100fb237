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
  /** --p2p.disable and --p2p.priv.path: the P2P identity key is loaded or created unless P2P is off. */
  p2p: { disabled: boolean; privPath: string };
  replica: ReplicaOptions;
}
