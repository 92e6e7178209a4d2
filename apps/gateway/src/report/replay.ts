/**
 * The journal's replay at start: what an earlier run left is delivered before the gateway listens.
 */
import { isRejectedInput, type Backend } from '../backend';
import { batchesWithin, rowCount } from '../connection-log/row-batch';
import type { Logger } from '../log';
import { REPLAY_ITEMS_PER_REPORT, type JournalReport, type UsageJournal } from './journal';

/**
 * Delivers what an earlier run left in the journal, before the gateway takes traffic: reports
 * that may or may not have arrived go again under their own seq, then the usage no report
 * carried, settling those leases (the earlier run is gone; listen() settles the rest). Retries
 * until the server answers: a gateway that cannot bill must not relay.
 */
export async function replayUsageJournal(journal: UsageJournal, backend: Pick<Backend, 'report'>, logger: Logger): Promise<void> {
  const { reports, unreported, connections = [] } = journal.outstanding();
  if (!reports.length && !unreported.length && !connections.length) return;
  logger.info({ reports: reports.length, leases: unreported.length }, 'usage journal: delivering what the last run left');
  const deliver = async (report: JournalReport) => {
    let r = report;
    for (let attempt = 1; ; attempt++) {
      try {
        await backend.report({ gatewayId: journal.gatewayId, seq: r.seq, items: r.items, ...(r.connections?.length ? { rows: r.connections } : {}) });
        break;
      } catch (err) {
        if (isRejectedInput(err) && r.connections?.length) {
          logger.error(
            { err, seq: r.seq, records: rowCount(r.connections) },
            "usage journal: the server refused a report's connection records; resent without them",
          );
          journal.withoutConnections(r.seq);
          r = { seq: r.seq, items: r.items };
          continue;
        }
        if (isRejectedInput(err)) {
          // Resending cannot change the answer; keeping it would block every later start.
          logger.error({ err, seq: r.seq, items: r.items }, 'usage journal: the server refused a report; dropped');
          break;
        }
        if (attempt === 1 || attempt % 30 === 0) logger.warn({ err, attempt }, 'usage journal: server unreachable; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** (attempt - 1), 2000)));
      }
    }
    journal.acknowledged(r.seq);
  };
  for (const r of reports) await deliver(r);
  // The rest in reports of at most REPLAY_ITEMS_PER_REPORT items and about as many records (whole batches).
  let itemsAt = 0;
  let batchesAt = 0;
  while (itemsAt < unreported.length || batchesAt < connections.length) {
    const seq = Math.max(Date.now() * 1000, journal.lastSeq + 1);
    const items = unreported.slice(itemsAt, itemsAt + REPLAY_ITEMS_PER_REPORT);
    itemsAt += items.length;
    const records = connections.slice(batchesAt, batchesAt + batchesWithin(connections, batchesAt, REPLAY_ITEMS_PER_REPORT));
    batchesAt += records.length;
    await journal.report(seq, items, records);
    await deliver({ seq, items, connections: records });
  }
  journal.compact();
  logger.info({}, 'usage journal: delivered');
}
