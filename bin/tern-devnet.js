#!/usr/bin/env node
// tern-devnet entry point: runs the compiled program from dist/ (npm run build).
import { main } from '../dist/src/main/devnet/cli.js';

process.exitCode = await main(process.argv.slice(2));
