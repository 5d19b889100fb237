// --rpc.admin-state: the sequencer's started/stopped state as changed through the admin API, kept across restarts
// in op-node's file format ({"sequencerStarted": bool}), written to a temp file, fsynced and renamed so a crash
// never leaves a torn file. A persisted state overrides --sequencer.stopped at startup.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { TernError } from '../../common/errors.js';

export type PersistedSequencerState = 'started' | 'stopped' | 'unset';

/** What the sequencer tells when it starts or stops (persistence, tests). */
export interface SequencerStateListener {
  sequencerStarted(): void | Promise<void>;
  sequencerStopped(): void | Promise<void>;
}

export class AdminStateFile implements SequencerStateListener {
  constructor(readonly path: string) {}

  read(): PersistedSequencerState {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'unset';
      throw new TernError('ADMIN_STATE', `cannot read the admin state file ${this.path}: ${(err as Error).message}`);
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new TernError('ADMIN_STATE', `the admin state file ${this.path} is not valid JSON; fix or delete it`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new TernError('ADMIN_STATE', `the admin state file ${this.path} must hold a JSON object`);
    }
    const extra = Object.keys(v).filter((k) => k !== 'sequencerStarted');
    if (extra.length > 0)
      throw new TernError('ADMIN_STATE', `the admin state file ${this.path} has unknown fields: ${extra.join(', ')}`);
    const s = (v as { sequencerStarted?: unknown }).sequencerStarted;
    if (s === undefined || s === null) return 'unset';
    if (typeof s !== 'boolean')
      throw new TernError('ADMIN_STATE', `sequencerStarted in ${this.path} must be true or false`);
    return s ? 'started' : 'stopped';
  }

  sequencerStarted(): void {
    this.#write(true);
  }

  sequencerStopped(): void {
    this.#write(false);
  }

  #write(started: boolean): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w', 0o644);
    try {
      writeSync(fd, JSON.stringify({ sequencerStarted: started }));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
  }
}

/** Whether the sequencer starts stopped: the persisted state when there is one, else --sequencer.stopped. */
export function initiallyStopped(flagStopped: boolean, persisted: PersistedSequencerState): boolean {
  if (persisted === 'started') return false;
  if (persisted === 'stopped') return true;
  return flagStopped;
}
