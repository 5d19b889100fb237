#!/usr/bin/env node
// tern-node entry point: runs the compiled program from dist/ (npm run build).
import { main } from '../dist/src/main/cli/run.js';
import { NODE_HOOKS } from '../dist/src/main/node/main.js';

await main(NODE_HOOKS);
