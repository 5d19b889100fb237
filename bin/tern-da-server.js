#!/usr/bin/env node
// tern-da-server entry point: runs the compiled program from dist/ (npm run build).
import { daServerMain } from '../dist/src/main/altda/main.js';

process.exitCode = await daServerMain(process.argv.slice(2));
