// The list of benchmark suites `npm run bench` knows. Each suite lives in its own file.
import { admissionSuite } from './admission.js';
import { blobsSuite } from './blobs.js';
import { callsSuite } from './calls.js';
import { derivationSuite } from './derivation.js';
import { engineSuite } from './engine/run.js';
import { gossipSuite } from './gossip.js';
import { graphqlSuite } from './graphql.js';
import { keccakSuite } from './keccak.js';
import { loggerSuite } from './logger.js';
import { poolSuite } from './pool.js';
import { precompilesSuite } from './precompiles.js';
import { prunerSuite } from './pruner.js';
import type { BenchSuite } from './suite.js';
import { trieSuite } from './trie.js';

export const SUITES: BenchSuite[] = [
  keccakSuite,
  poolSuite,
  loggerSuite,
  trieSuite,
  blobsSuite,
  precompilesSuite,
  derivationSuite,
  prunerSuite,
  graphqlSuite,
  callsSuite,
  gossipSuite,
  admissionSuite,
  engineSuite,
];
