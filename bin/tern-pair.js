#!/usr/bin/env node
// tern-pair entry point: tern-node and tern-exec in one process (npm run build first; runs from dist/).
import { main } from '../dist/src/main/pair/run.js';

await main();
