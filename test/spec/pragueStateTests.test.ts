// execution-spec-tests Prague state tests (eest-prague/state_tests/prague: EIP-2537, 7623, 7702), their post.Prague
// cases through tern's state transition with Prague's rules (see stateTestRunner.ts). Every case must pass.
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import { defineEestStateTests } from './stateTestRunner.js';

defineEestStateTests({
  label: 'EEST Prague state tests, post.Prague',
  dir: join(FIXTURES, 'eest-prague', 'state_tests'),
  network: 'Prague',
  files: 98,
  cases: 1090,
  report: 'pragueStateTests',
});
