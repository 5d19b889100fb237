// The list of benchmark suites `npm run bench` knows. Each suite lives in its own file.
import type { BenchSuite } from './suite.js';

export const SUITES: BenchSuite[] = [];
