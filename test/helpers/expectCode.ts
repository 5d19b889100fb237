// Asserts that a call fails with a TernError of a given code (a promise, or a function that throws or rejects).
import { expect } from 'vitest';
import { TernError } from '../../src/main/common/errors.js';

export async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<void> {
  try {
    if (typeof p === 'function') await p();
    else await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).code).toBe(code);
    return;
  }
  throw new Error(`expected an error with code ${code}`);
}
