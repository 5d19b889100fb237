// `npm start`: the local rollup network (tern-devnet) in .tern-start/, started fresh each time unless the
// arguments say otherwise (`npm start -- --reuse`, `npm start -- --workdir DIR`, `npm start -- --help`).
import { main } from '../dist/src/main/devnet/cli.js';

const args = process.argv.slice(2);
const chosen = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
if (!chosen('--workdir')) args.push('--workdir', '.tern-start');
if (!chosen('--reuse') && !chosen('--clean')) args.push('--clean');

process.exitCode = await main(args);
