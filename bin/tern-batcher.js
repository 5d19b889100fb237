#!/usr/bin/env node
import { BATCHER_HOOKS } from '../dist/src/main/batcher/main.js';
// tern-batcher entry point: runs the compiled program from dist/ (npm run build).
import { main } from '../dist/src/main/cli/run.js';

await main(BATCHER_HOOKS);
