// ethereum/tests BlockchainTests (ValidBlocks and InvalidBlocks) through tern-exec's block import (see
// blockchainTestSuite.ts and blockchainTestRunner.ts). BLOCKCHAIN_TESTS=<substring> narrows a local run.
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import { defineBlockchainTests } from './blockchainTestSuite.js';

defineBlockchainTests({
  title: 'BlockchainTests',
  dir: join(FIXTURES, 'ethereum-tests', 'BlockchainTests'),
  groups: ['ValidBlocks', 'InvalidBlocks'],
  files: 348,
  minTests: 570,
  report: 'blockchainTests',
});
