// --crypto.kzg: ckzg is the c-kzg binding and must load (geth fails the same way when it lacks ckzg); gokzg maps to
// c-kzg with one info line when asked for explicitly; anything else is refused.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/main/common/errors.js';
import type { Logger } from '../../../../src/main/common/logger/index.js';
import { selectKzgLibrary } from '../../../../src/main/exec/cryptoKzg.js';

function recordingLogger(): { logger: Logger; infos: string[] } {
  const infos: string[] = [];
  const logger = { info: (msg: string) => infos.push(msg) } as unknown as Logger;
  return { logger, infos };
}

describe('--crypto.kzg', () => {
  it('ckzg loads the binding and fails clearly when it cannot', () => {
    const { logger } = recordingLogger();
    expect(selectKzgLibrary('ckzg', true, logger)).toBe('ckzg');
    let probed = false;
    selectKzgLibrary('ckzg', true, logger, () => {
      probed = true;
    });
    expect(probed).toBe(true);
    expect(() =>
      selectKzgLibrary('ckzg', true, logger, () => {
        throw new Error('Cannot find module');
      }),
    ).toThrow(UsageError);
    expect(() =>
      selectKzgLibrary('ckzg', true, logger, () => {
        throw new Error('Cannot find module');
      }),
    ).toThrow(/failed to set KZG library implementation to ckzg/);
  });

  it('gokzg maps to c-kzg, saying so once when given explicitly and never probing', () => {
    const explicit = recordingLogger();
    const never = () => {
      throw new Error('must not probe');
    };
    expect(selectKzgLibrary('gokzg', true, explicit.logger, never)).toBe('ckzg');
    expect(explicit.infos).toHaveLength(1);
    expect(explicit.infos[0]).toMatch(/gokzg.*c-kzg/);
    const byDefault = recordingLogger();
    selectKzgLibrary('gokzg', false, byDefault.logger, never);
    expect(byDefault.infos).toEqual([]);
  });

  it('refuses other values', () => {
    const { logger } = recordingLogger();
    expect(() => selectKzgLibrary('blst', true, logger)).toThrow(/--crypto.kzg must be one of gokzg, ckzg/);
  });
});
