/**
 * The abuse look-up: an abuse report names a target host, a time and often our exit IP; this finds
 * the connections in the connection log that match, with the customer behind each. A host matches
 * itself and its subdomains on any port (`bank.example` finds `www.bank.example:443`); an address
 * matches exactly. Newest first, at most ABUSE_LOOKUP_MAX_ROWS.
 */
import { isIP } from 'node:net';
import { and, desc, eq, gte, like, lt, ne, or } from 'drizzle-orm';
import { ABUSE_LOOKUP_MAX_ROWS, type AbuseLookupInput } from '@proxyhub/core';
import { connectionLog, proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { likeLiteral, range } from '../connection-log/reads';

export interface AbuseConnection {
  id: string;
  userId: string;
  email: string;
  userSuspended: boolean;
  proxyAccountId: string;
  proxyAccountName: string;
  proxyUserId: string;
  protocol: string;
  target: string;
  exitIp: string;
  startedAt: string;
  endedAt: string;
  bytesUp: string;
  bytesDown: string;
  billedBytes: string;
  outcome: string;
  reason: string;
  gatewayId: string;
}

/** The log's condition for a host as an abuse report gives it (a name, an IPv4 or an IPv6 address). */
function targetMatches(raw: string) {
  const host = raw.replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return like(connectionLog.target, `${likeLiteral(host.includes(':') ? `[${host}]` : host)}:%`);
  const h = likeLiteral(host);
  return or(like(connectionLog.target, `${h}:%`), like(connectionLog.target, `%.${h}:%`));
}

export async function abuseLookup(db: DbOrTx, input: AbuseLookupInput): Promise<{ connections: AbuseConnection[] }> {
  const { from, to } = range(input, false);
  const rows = await db
    .select({
      id: connectionLog.id,
      userId: connectionLog.userId,
      email: users.email,
      disabledAt: users.disabledAt,
      proxyAccountId: connectionLog.proxyAccountId,
      proxyAccountName: proxyAccounts.name,
      proxyUserId: connectionLog.proxyUserId,
      protocol: connectionLog.protocol,
      target: connectionLog.target,
      exitIp: connectionLog.exitIp,
      startedAt: connectionLog.startedAt,
      endedAt: connectionLog.endedAt,
      bytesUp: connectionLog.bytesUp,
      bytesDown: connectionLog.bytesDown,
      billedBytes: connectionLog.billedBytes,
      outcome: connectionLog.outcome,
      reason: connectionLog.reason,
      gatewayId: connectionLog.gatewayId,
    })
    .from(connectionLog)
    .leftJoin(users, eq(users.id, connectionLog.userId))
    .leftJoin(proxyAccounts, eq(proxyAccounts.id, connectionLog.proxyAccountId))
    .where(
      and(
        gte(connectionLog.startedAt, from),
        lt(connectionLog.startedAt, to),
        input.target ? targetMatches(input.target) : undefined,
        // `<> ''` as well: the exit IP index holds only rows with one, and a generic plan cannot infer it from `= $1`.
        input.exitIp ? and(eq(connectionLog.exitIp, input.exitIp.toLowerCase()), ne(connectionLog.exitIp, '')) : undefined,
      ),
    )
    .orderBy(desc(connectionLog.startedAt), desc(connectionLog.id))
    .limit(ABUSE_LOOKUP_MAX_ROWS);
  return {
    connections: rows.map(({ disabledAt, ...r }) => ({
      ...r,
      email: r.email ?? '',
      userSuspended: disabledAt !== null,
      proxyAccountName: r.proxyAccountName ?? '',
      startedAt: r.startedAt.toISOString(),
      endedAt: r.endedAt.toISOString(),
      bytesUp: String(r.bytesUp),
      bytesDown: String(r.bytesDown),
      billedBytes: String(r.billedBytes),
    })),
  };
}
