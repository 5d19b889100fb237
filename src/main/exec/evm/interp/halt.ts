// The exceptional halt of a frame on tern's interpreter: thrown by an opcode, caught once by ./frame.ts's loop and
// turned into the frame's exceptionError (anything else thrown is a real failure and propagates).
import { EVMError } from '@ethereumjs/evm';

export class Halt {
  constructor(readonly error: EVMError) {}
}

/** Halts the frame with one of @ethereumjs/evm's error messages. */
export function fail(message: string): never {
  throw new Halt(new EVMError(message as ConstructorParameters<typeof EVMError>[0]));
}
