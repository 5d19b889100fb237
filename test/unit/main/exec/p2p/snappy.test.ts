// A peer's frame claiming a huge uncompressed size must be refused before anything is allocated, also inside
// @ethereumjs/devp2p (which decompresses every frame itself): checked in a plain Node process loading the built
// server module the way tern-exec does, through the shared snappyjs module namespace the library binds to.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../../helpers/paths.js';

describe('snappy bound for devp2p frames', () => {
  it('refuses a 1 GiB claimed length as the library sees the module', () => {
    const server = join(ROOT, 'dist/src/main/exec/p2p/server.js');
    const script = `
      await import(${JSON.stringify(server)});
      const ns = await import('snappyjs');
      try { ns.uncompress(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x04, 0x00)); console.log('allocated'); }
      catch (e) { console.log(e.message); }
      console.log(Buffer.from(ns.uncompress(ns.compress(Buffer.from('ok')))).toString());`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/too big, expect at most 16777215/);
    expect(r.stdout.trim().endsWith('ok')).toBe(true);
  });
});
