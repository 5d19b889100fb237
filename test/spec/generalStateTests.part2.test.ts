// ethereum/tests GeneralStateTests, post.Cancun, shard 2 of 2 (see generalStateTests.test.ts).
import { defineGeneralStateTests } from './stateTestRunner.js';

defineGeneralStateTests(2, 2);
