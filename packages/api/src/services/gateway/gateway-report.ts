/**
 * A gateway's report, applied: its usage (once per gateway and seq, leases.ts), its connection
 * records stored with it (connection-log/store.ts), and what follows from it (late records for
 * statements, low-balance and usage alerts, the gateway's connection allowances). gateway.report is this.
 */
import type { GatewayReportInput } from '@proxyhub/core';
import type { Db } from '@proxyhub/db';
import { inBackground, kickTelegram, type ApiDeps } from '../../deps';
import { checkBalanceAlerts, usersOfLeases } from '../notify/balance-alerts';
import { checkUsageAlertsOfLeases } from '../notify/usage-alerts';
import { CONNECTION_LOG_DAYS } from '../connection-log/days';
import { connectionCount, ensureConnectionPartitions, reportConnections, reportDays, storeConnections } from '../connection-log/store';
import { connectionAllowances, type ConnectionAllowance } from './connection-limits';
import { applyGatewayReport, type ReportResult } from './leases';
import { noteLateConnections } from '../money/statements';

export type GatewayReportAnswer = ReportResult & { allowances?: ConnectionAllowance[] };

export async function receiveGatewayReport(db: Db, deps: ApiDeps, input: GatewayReportInput): Promise<GatewayReportAnswer> {
  const records = reportConnections(input);
  const { days, oldest, earliest } = reportDays(records, Date.now(), deps.config.connectionLogDays ?? CONNECTION_LOG_DAYS);
  // Outside the transaction: making a partition locks the whole table for a moment.
  await ensureConnectionPartitions(db, days);
  // With the usage it bills, once: a repeated (gatewayId, seq) stores nothing again. Stored
  // before the usage takes its row locks, so reports of one user from several gateways store
  // their records side by side.
  const result = await db.transaction((tx) => applyGatewayReport(tx, input, { whenClaimed: () => storeConnections(tx, input.gatewayId, records, oldest) }));
  if (result.applied && connectionCount(records)) noteLateConnections(db, earliest);
  // After commit, off the gateway's answer (a slow or failing mailer must not fail a report that
  // was applied): low-balance mails for the users whose wallets this report spent.
  if (result.applied) {
    const leaseIds = input.items.map((i) => i.leaseId);
    inBackground(deps, 'balance alerts', async () => checkBalanceAlerts(db, deps, await usersOfLeases(db, leaseIds), deps.logger));
    // Shares of a cap, daily or monthly limit crossed by this usage (once each, whichever report sees it).
    inBackground(deps, 'usage alerts', async () => {
      if ((await checkUsageAlertsOfLeases(db, deps, leaseIds, deps.logger)).length) kickTelegram(deps);
    });
  }
  // Connection counts are the gateway's state now, recorded even with a repeated report.
  const answer: GatewayReportAnswer = result;
  if (input.openConnections) answer.allowances = await connectionAllowances(db, input.gatewayId, input.openConnections);
  return answer;
}
