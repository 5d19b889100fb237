// `tern-exec execute-witness <file.json>`: builds one block from payload attributes on top of a parent header
// using only the file's witness, and prints {blockHash, stateRoot, receiptsRoot, gasUsed, logsBloom} as JSON on
// stdout. Bad input (unreadable file, bad JSON, a missing field, a preimage the witness lacks, attributes that
// give no block) is one line on stderr and exit status 1.
import { readFileSync } from 'node:fs';
import { ReportedError, TernError } from '../../common/errors.js';
import { toHexKey } from '../../primitives/bytes.js';
import type { ExecContext } from '../options.js';
import { parseWitnessFile } from '../witness/input.js';
import { PreimageStore } from '../witness/preimages.js';
import { buildStateless } from '../witness/stateless.js';

/** Errors that mean the input is wrong rather than tern. */
const INPUT_ERRORS = /^(WITNESS_|BUILD_|EIP1559_PARAMS$|ROLLUP_CONFIG$|CHAIN_CONFIG$|HEADER_|TX_)/;

export interface ExecuteWitnessResult {
  blockHash: string;
  stateRoot: string;
  receiptsRoot: string;
  gasUsed: string;
  logsBloom: string;
}

/** Runs the file's build; throws ReportedError with the reason for bad input. */
export async function executeWitnessFile(path: string): Promise<ExecuteWitnessResult> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ReportedError(`cannot read witness file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const file = parseWitnessFile(text);
    const built = await buildStateless({
      config: file.config,
      parent: file.parentHeader,
      attrs: file.attributes,
      preimages: new PreimageStore(file.preimages),
    });
    const h = built.block.header;
    return {
      blockHash: toHexKey(built.hash),
      stateRoot: toHexKey(h.stateRoot),
      receiptsRoot: toHexKey(h.receiptsRoot),
      gasUsed: `0x${h.gasUsed.toString(16)}`,
      logsBloom: toHexKey(h.logsBloom),
    };
  } catch (err) {
    if (err instanceof TernError && INPUT_ERRORS.test(err.code)) throw new ReportedError(`${path}: ${err.message}`);
    throw err;
  }
}

export async function runExecuteWitness({ options }: ExecContext): Promise<'done'> {
  const result = await executeWitnessFile(options.args[0] as string);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 'done';
}
