import { Job, Queue, type JobProgress, type JobsOptions } from 'bullmq';

/** A job's data that is JSON already: the bytes BullMQ stores for it. */
class EncodedData {
  readonly json: Buffer;

  constructor(json: Buffer) {
    this.json = json;
  }

  /** What BullMQ's own serialisation of the job sees, cheaply; EncodedDataJob stores `json` instead. */
  toJSON(): null {
    return null;
  }
}

// Generic as Job is, so that it can stand in for it (Queue's `Job`).
class EncodedDataJob<Data, Result, Name extends string, Progress extends JobProgress> extends Job<Data, Result, Name, Progress> {
  override asJSON(): ReturnType<Job['asJSON']> {
    const json = super.asJSON();
    // The data travels as a script argument; ioredis writes a Buffer argument as its bytes.
    if (this.data instanceof EncodedData) json.data = this.data.json as unknown as string;
    return json;
  }
}

/**
 * A queue that also takes jobs whose data is JSON already, so that their producer need not
 * parse what it carries only for BullMQ to serialise it again (the staged-usage mover: hundreds
 * of events a job, docs/performance.md). Consumers read such a job like any other.
 */
export class EncodedDataQueue extends Queue {
  protected override get Job(): typeof Job {
    return EncodedDataJob;
  }

  /** Adds a job whose data is `json`, the JSON text of an object, stored as it is. */
  addEncoded(name: string, json: Buffer, opts: JobsOptions): Promise<Job> {
    return this.add(name, new EncodedData(json), opts);
  }
}
