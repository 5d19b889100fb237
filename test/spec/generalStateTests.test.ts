// ethereum/tests GeneralStateTests, post.Cancun, shard 1 of 2 (shard 2: generalStateTests.part2.test.ts; vitest
// runs the two files on separate cores). Every case goes through tern's state transition; see stateTestRunner.ts
// for how a case runs, what counts as passing, the heavy cases left to STATE_TESTS_HEAVY=1, and the environment
// variables that narrow a run. Each shard prints its failures and checks a pass rate of at least 99.5 %.
import { defineGeneralStateTests } from './stateTestRunner.js';

defineGeneralStateTests(1, 2);
