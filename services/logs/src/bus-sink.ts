import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Bus, Job } from "@junction/bus";
import { queues } from "@junction/bus/subjects";
import { OperationBatchSchema } from "@junction/contracts/logs/v1/logs_service_pb";
import type { Operation } from "@junction/platform/operations/operation";
import type { OperationSink } from "@junction/platform/operations/operation-recorder";
import { fromProto, toProto } from "./mappers.ts";

/** A process's recorder sink in the distributed topology: each batch one job of the `logs.operations` queue. */
export function busOperationSink(bus: Bus): OperationSink {
  return async (batch) => {
    const data = toBinary(
      OperationBatchSchema,
      create(OperationBatchSchema, { operations: batch.map((o) => toProto(o, true)) }),
    );
    await bus.enqueue(queues.logsOperations, data);
  };
}

/** The logs service's consumer of those jobs: a batch it cannot read is dropped, never retried forever. */
export function operationBatchHandler(ingest: (batch: Operation[]) => Promise<void>) {
  return async (job: Job): Promise<void> => {
    let batch: Operation[];
    try {
      batch = fromBinary(OperationBatchSchema, job.data)
        .operations.map(fromProto)
        .filter((o): o is Operation => o !== undefined);
    } catch {
      await job.term();
      return;
    }
    await ingest(batch);
    await job.ack();
  };
}
