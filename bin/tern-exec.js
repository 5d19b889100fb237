#!/usr/bin/env node
// tern-exec entry point: runs the compiled program from dist/ (npm run build).
import { main } from '../dist/src/main/cli/run.js';
import { EXEC_HOOKS } from '../dist/src/main/exec/main.js';

await main(EXEC_HOOKS);
