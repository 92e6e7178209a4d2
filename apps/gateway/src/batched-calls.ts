/**
 * Server calls of one moment gathered into one. A gateway that restarts, or a customer who opens
 * a thousand new accounts at once, would otherwise ask the server a thousand times, one database
 * round trip after another on the embedded database: connections setting up together are answered
 * together instead (the server has set-based batch procedures for this).
 *
 * The calls that arrive while the event loop handles one round of I/O go out as one batch; while a
 * batch is with the server the next one gathers, so a burst turns into a few large calls rather
 * than many small ones racing for the same database.
 */
import DataLoader from 'dataloader';
import { MAX_GATEWAY_BATCH } from '@proxyhub/core';

/** Batches with the server at once: one, the next gathers behind it (the embedded database runs one query at a time anyway). */
const IN_FLIGHT = 1;

/**
 * One input at a time for the caller, batches for the server: `send` answers every item, in the
 * order given (a failed call fails every caller in it).
 */
export function batchedCalls<I, O>(send: (items: readonly I[]) => Promise<readonly O[]>): (input: I) => Promise<O> {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const loader = new DataLoader<I, O>(
    async (items) => {
      inFlight += 1;
      try {
        return await send(items);
      } finally {
        inFlight -= 1;
        waiting.shift()?.();
      }
    },
    {
      cache: false,
      maxBatchSize: MAX_GATEWAY_BATCH,
      batchScheduleFn: (dispatch) => {
        if (inFlight < IN_FLIGHT) setImmediate(dispatch);
        else waiting.push(dispatch);
      },
    },
  );
  return (input) => loader.load(input);
}
