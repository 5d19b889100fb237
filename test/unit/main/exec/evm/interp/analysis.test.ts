// The code analysis of tern's interpreter: which code it admits (every reachable instruction implemented), the
// jump destinations, and PUSH immediates (padded with zeros past the end of the code, as the EVM reads them).
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import {
  analyse,
  type GasTable,
  gasTableOf,
  type OpcodeTableEntry,
} from '../../../../../../src/main/exec/evm/interp/analysis.js';

async function table(hardfork: Hardfork): Promise<GasTable> {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork }) });
  const t = gasTableOf((evm as unknown as { _opcodeMap: OpcodeTableEntry[] })._opcodeMap);
  if (t === null) throw new Error('no gas table');
  return t;
}

const code = (...bytes: number[]) => Uint8Array.from(bytes);

describe("tern interpreter's code analysis", () => {
  it('implements every opcode of Cancun and Prague (calls, creates and SELFDESTRUCT included)', async () => {
    for (const hardfork of [Hardfork.Cancun, Hardfork.Prague]) {
      const t = await table(hardfork);
      for (let op = 0; op < 256; op++)
        expect(t.invalid[op] === 1 || t.implemented[op] === 1, `${hardfork} 0x${op.toString(16)}`).toBe(true);
      for (const op of [0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0xff]) {
        expect(t.implemented[op], `0x${op.toString(16)}`).toBe(1);
        expect(analyse(code(0x5f, op), t).supported).toBe(true);
      }
    }
  });

  it('admits code only when no reachable instruction is one it does not implement', async () => {
    // A table whose CALL is something else (as an opcode of a later fork would be): CALL is then unimplemented.
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
    const map = (evm as unknown as { _opcodeMap: OpcodeTableEntry[] })._opcodeMap.slice();
    const call = map[0xf1] as OpcodeTableEntry;
    map[0xf1] = { opcodeInfo: { ...call.opcodeInfo, name: 'NOT_CALL' } };
    const t = gasTableOf(map) as GasTable;
    expect(t.implemented[0xf1]).toBe(0);
    expect(analyse(code(0x60, 0x01, 0x60, 0x02, 0x01, 0x00), t).supported).toBe(true);
    // CALL reachable from the start
    expect(analyse(code(0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x5a, 0xf1), t).supported).toBe(false);
    // CALL after STOP / RETURN / INVALID / an undefined byte, with no JUMPDEST before it: never executed
    expect(analyse(code(0x00, 0xf1), t).supported).toBe(true);
    expect(analyse(code(0x5f, 0x5f, 0xf3, 0xf1), t).supported).toBe(true);
    expect(analyse(code(0xfe, 0xf1), t).supported).toBe(true);
    expect(analyse(code(0x0c, 0xf1), t).supported).toBe(true);
    expect(analyse(code(0x5f, 0xff, 0xf1), t).supported).toBe(true);
    // ... but a JUMPDEST makes what follows reachable again
    expect(analyse(code(0x00, 0x5b, 0xf1), t).supported).toBe(false);
    // CALL bytes inside PUSH data are data
    expect(analyse(code(0x61, 0xf1, 0xf1, 0x00), t).supported).toBe(true);
  });

  it('finds jump destinations outside PUSH data and decodes PUSH immediates, zero-padded at the end', async () => {
    const t = await table(Hardfork.Cancun);
    const a = analyse(code(0x5b, 0x61, 0x5b, 0x5b, 0x5b, 0x62, 0xab, 0xcd), t);
    expect(Array.from(a.jumpdests)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(a.pushes[1]).toBe(0x5b5bn);
    expect(a.pushes[5]).toBe(0xabcd00n);
  });

  it('knows which opcodes the fork has: PUSH0 is not an opcode before Shanghai', async () => {
    const london = await table(Hardfork.London);
    expect(london.invalid[0x5f]).toBe(1);
    expect(london.implemented[0x5f]).toBe(0);
    const prague = await table(Hardfork.Prague);
    expect(prague.invalid[0x5f]).toBe(0);
    expect(prague.implemented[0x5f]).toBe(1);
    expect(prague.fee[0x54]).toBe(0); // SLOAD: all of it is EIP-2929 access gas, priced inline
  });
});
