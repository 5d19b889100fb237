// execution-spec-tests Prague blockchain tests (eest-prague/blockchain_tests/prague: EIP-7702, 2537, 2935, 6110,
// 7002, 7251, 7623, 7685, 7691) through tern-exec's block import, with EEST's `config` and exception names (see
// blockchainTestSuite.ts and blockchainTestRunner.ts). BLOCKCHAIN_TESTS=<substring> narrows a local run.
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import { defineBlockchainTests } from './blockchainTestSuite.js';

defineBlockchainTests({
  title: 'EEST Prague BlockchainTests',
  dir: join(FIXTURES, 'eest-prague', 'blockchain_tests'),
  groups: ['prague'],
  files: 148,
  minTests: 1353,
  report: 'pragueBlockchainTests',
});
