/**
 * Connection limits (a proxy account's maxConnections), across the fleet within a few seconds. Each
 * gateway holds one slot per client connection of a limited account, taken before its target is
 * opened and given back when the client socket closes; it reports its open slots per account with
 * its usage reports (about once a second while they change) and the server answers what this
 * gateway may hold: the limit less what the other gateways reported (connection-limits.ts on the
 * server). One gateway alone never goes over; several may for the seconds between two reports.
 */
import type { Socket } from 'node:net';
import type { Account } from './meter';

/** What this gateway may hold for the account now; null: no limit. */
export function slotLimit(acc: Account): number | null {
  if (acc.maxConnections === null) return null;
  return acc.allowance === null ? acc.maxConnections : Math.min(acc.maxConnections, acc.allowance);
}

/** Takes a slot for `client` (once per client connection, held until it closes); false: the limit is reached. */
export function takeSlot(acc: Account, client: Socket): boolean {
  const limit = slotLimit(acc);
  if (limit === null || acc.slots.has(client)) return true;
  if (acc.slots.size >= limit) return false;
  acc.slots.add(client);
  acc.meter.slotsChanged = true;
  client.once('close', () => {
    acc.slots.delete(client);
    acc.meter.slotsChanged = true;
  });
  return true;
}
