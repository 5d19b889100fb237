// Types of crashLayout.mjs (plain JavaScript, so that the child process runs it without a build step).
export declare const LAST: Uint8Array;
export declare function key(s: string): Uint8Array;
export declare function encodeN(n: number): Uint8Array;
export declare function decodeN(b: Uint8Array): number;
export declare function keysIn(n: number): number;
export declare function sizeOf(n: number, i: number): number;
export declare function batchValue(n: number, i: number): Uint8Array;
