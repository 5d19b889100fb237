// The one loader of the secp256k1 binding (libsecp256k1 over N-API in the `secp256k1` package, CommonJS, which falls
// back to its own JS when unbuilt). Signing and recovery everywhere (senders, signers, keystores, the batcher) use it.
import { createRequire } from 'node:module';
import type * as Secp256k1Module from 'secp256k1';

export type Secp256k1 = typeof Secp256k1Module;

export const secp256k1: Secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1;
