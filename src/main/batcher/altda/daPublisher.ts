// tern-batcher's alt-DA mode (op-batcher with --altda.enabled): each batcher transaction's payload (derivation
// version byte 0 ++ frames) is stored on the DA server first, and only the commitment (version byte 1 ++
// encoded commitment) goes to L1 as calldata. At most --altda.max-concurrent-da-requests puts run at once; a put
// that fails leaves the frames to be sent again (the caller marks the transaction failed).

import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { DaClient } from '../../protocol/altda/client.js';
import { commitmentHex, commitmentTxData } from '../../protocol/altda/commitment.js';

export interface DaPublisherOptions {
  url: string;
  daService: boolean;
  putTimeoutMs: number;
  maxConcurrent: number;
}

export class DaPublisher {
  private readonly client: DaClient;
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly opts: DaPublisherOptions,
    private readonly log: Logger,
  ) {
    this.client = new DaClient({ url: opts.url, daService: opts.daService, putTimeoutMs: opts.putTimeoutMs });
  }

  /** Stores `payload` on the DA server; returns the calldata to post on L1. */
  async publish(payload: Uint8Array): Promise<Uint8Array> {
    if (this.active >= Math.max(1, this.opts.maxConcurrent)) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
    this.active++;
    try {
      const comm = await this.client.setInput(payload);
      this.log.debug('alt-DA input stored', { comm: commitmentHex(comm), bytes: payload.length });
      return commitmentTxData(comm);
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/** --altda.enabled, --altda.da-server, --altda.da-service, --altda.put-timeout (ms), --altda.max-concurrent-da-requests. */
export interface AltDaBatcherOptions {
  enabled: boolean;
  daServer: string | undefined;
  daService: boolean;
  putTimeoutMs: number;
  maxConcurrent: number;
}

/** Checks the alt-DA options against the data availability type; throws UsageError on what cannot work. */
export function checkAltDaOptions(opts: AltDaBatcherOptions, dataAvailabilityType: string): void {
  if (!opts.enabled) return;
  if (opts.daServer === undefined || opts.daServer === '') {
    throw new UsageError('--altda.enabled needs --altda.da-server');
  }
  if (dataAvailabilityType !== 'calldata') {
    throw new UsageError('--altda.enabled posts commitments as calldata: set --data-availability-type=calldata');
  }
}

/** undefined when --altda.enabled is off (options already checked by checkAltDaOptions). */
export function daPublisherFromOptions(opts: AltDaBatcherOptions, log: Logger): DaPublisher | undefined {
  if (!opts.enabled || opts.daServer === undefined) return undefined;
  return new DaPublisher(
    {
      url: opts.daServer,
      daService: opts.daService,
      putTimeoutMs: opts.putTimeoutMs,
      maxConcurrent: opts.maxConcurrent,
    },
    log.child('altda'),
  );
}
