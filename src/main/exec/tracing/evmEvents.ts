// The parts of @ethereumjs/evm's events the tracers read, and attaching to them. Listeners take one parameter, so
// the EVM calls them synchronously inside its own call stack: a throw from one aborts execution (how a tracer
// stops a run that passed its timeout). A 'step' listener makes the interpreter copy stack and memory at every
// opcode, which is why tracers attach only for the transactions they trace.
import type { EVM } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

/** One opcode about to run (the interpreter's step event). */
export interface StepEvent {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; code: number; dynamicFee: bigint };
  /** Bottom first. */
  stack: bigint[];
  /** 0 for the transaction's own frame (geth counts from 1). */
  depth: number;
  address: Address;
  /** The memory before the opcode expands it. */
  memory: Uint8Array;
}

/** A call frame about to start (the beforeMessage event). */
export interface MessageEvent {
  to?: Address | undefined;
  caller: Address;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  depth: number;
  isStatic: boolean;
  delegatecall: boolean;
  salt?: Uint8Array | undefined;
  /** Set for CALLCODE and DELEGATECALL (the code runs in `to`'s context). */
  _codeAddress?: Address | undefined;
}

/** A call frame that ended (the afterMessage event). */
export interface MessageResultEvent {
  createdAddress?: Address | undefined;
  execResult: {
    executionGasUsed: bigint;
    returnValue: Uint8Array;
    exceptionError?: { error: string } | undefined;
  };
}

export interface EvmListeners {
  step?: (e: StepEvent) => void;
  beforeMessage?: (m: MessageEvent) => void;
  afterMessage?: (r: MessageResultEvent) => void;
}

type Emitter = {
  on(event: string, fn: (arg: never) => void): void;
  off(event: string, fn: (arg: never) => void): void;
};

/** Attaches the listeners to the EVM; the returned function detaches them. */
export function attach(evm: EVM, listeners: EvmListeners): () => void {
  const events = evm.events as unknown as Emitter;
  const pairs = Object.entries(listeners).filter(([, fn]) => fn !== undefined) as Array<[string, (a: never) => void]>;
  for (const [name, fn] of pairs) events.on(name, fn);
  return () => {
    for (const [name, fn] of pairs) events.off(name, fn);
  };
}
