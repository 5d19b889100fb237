// op-l1-rpc: L1 blocks and headers as JSON-RPC returns them, some with deliberately wrong roots. Every fixture
// must be accepted or rejected exactly as its metadata says; a fixture this suite cannot classify fails it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TernError } from '../../src/main/common/errors.js';
import { checkBlock, checkHeader } from '../../src/main/node/l1/verify.js';
import { FIXTURES } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'op-l1-rpc');

interface Meta {
  name: string;
  fail?: boolean;
  reason?: string;
}

function cases(kind: 'blocks' | 'headers'): [string, Meta, unknown][] {
  const files = readdirSync(join(DIR, kind));
  const metas = files.filter((f) => f.endsWith('_metadata.json'));
  const datas = files.filter((f) => f.endsWith('_data.json'));
  // Every file is one half of a pair: a stray file is a fixture this suite does not know.
  expect(metas.length + datas.length).toBe(files.length);
  expect(metas.length).toBe(datas.length);
  return metas.map((m) => {
    const name = m.replace(/_metadata\.json$/, '');
    const meta = JSON.parse(readFileSync(join(DIR, kind, m), 'utf8')) as Meta;
    expect(meta.name).toBe(name);
    expect(Object.keys(meta).every((k) => ['name', 'fail', 'reason'].includes(k))).toBe(true);
    return [name, meta, JSON.parse(readFileSync(join(DIR, kind, `${name}_data.json`), 'utf8'))];
  });
}

function outcome(fn: () => unknown): TernError | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!(err instanceof TernError)) throw err;
    return err;
  }
}

describe('op-l1-rpc blocks (eth_getBlockByHash with full transactions)', () => {
  const all = cases('blocks');
  it('has the fixtures', () => expect(all.length).toBe(12));
  it.each(all)('%s', (_name, meta, data) => {
    const err = outcome(() => checkBlock(data, true));
    if (meta.fail) {
      expect(err?.code).toBe('L1_BLOCK_INVALID');
      expect(err?.severity).toBe('temporary');
      // Same failing check as op-node's (its reason text is part of our message).
      expect(err?.message).toContain(meta.reason as string);
    } else {
      expect(err).toBeUndefined();
      // Trusted mode parses without checking.
      expect(checkBlock(data, false).transactions.length).toBe(
        (data as { transactions: unknown[] }).transactions.length,
      );
    }
  });
});

describe('op-l1-rpc headers (eth_getBlockByHash without transactions)', () => {
  const all = cases('headers');
  it('has the fixtures', () => expect(all.length).toBe(7));
  it.each(all)('%s', (_name, meta, data) => {
    const err = outcome(() => checkHeader(data, true));
    if (meta.fail) {
      expect(err?.code).toBe('L1_BLOCK_INVALID');
      expect(err?.message).toMatch(/failed to verify block hash/);
    } else {
      expect(err).toBeUndefined();
    }
  });
});
