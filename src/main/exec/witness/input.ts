// The execute-witness file: {rollupConfig, parentHeader, attributes, witness}. Every problem is one WITNESS_INPUT
// error naming the field, so the command can say what is wrong in one line.
import { TernError } from '../../common/errors.js';
import type { Header } from '../../primitives/block/header.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { parseRollupConfig, type RollupConfig } from '../../primitives/rollup/config.js';
import { chainConfigFromRollup } from '../../primitives/rollup/opChainConfig.js';
import type { BuildAttributes } from '../chain/builder.js';
import { attributesFromJson, headerFromJson } from './json.js';
import { preimagesFromJson } from './witness.js';

export interface WitnessFile {
  rollupConfig: RollupConfig;
  /** The execution config the rollup config implies. */
  config: ChainConfig;
  parentHeader: Header;
  attributes: BuildAttributes;
  preimages: Uint8Array[];
}

const FIELDS = ['rollupConfig', 'parentHeader', 'attributes', 'witness'] as const;

function bad(message: string): never {
  throw new TernError('WITNESS_INPUT', message);
}

export function parseWitnessFile(text: string): WitnessFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    bad(`not valid JSON: ${(err as Error).message}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    bad(`must be a JSON object with ${FIELDS.join(', ')}`);
  const o = json as Record<string, unknown>;
  const missing = FIELDS.filter((f) => o[f] === undefined || o[f] === null);
  if (missing.length > 0) bad(`missing field(s): ${missing.join(', ')}`);
  let rollupConfig: RollupConfig;
  let config: ChainConfig;
  try {
    rollupConfig = parseRollupConfig(o.rollupConfig);
    config = chainConfigFromRollup(rollupConfig);
  } catch (err) {
    if (err instanceof TernError) bad(`rollupConfig: ${err.message.replace(/^rollup config: /, '')}`);
    throw err;
  }
  return {
    rollupConfig,
    config,
    parentHeader: headerFromJson(o.parentHeader, 'parentHeader'),
    attributes: attributesFromJson(o.attributes, 'attributes'),
    preimages: preimagesFromJson(o.witness, 'witness'),
  };
}
