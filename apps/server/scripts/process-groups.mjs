// Process groups of the launcher's children. Each child leads its own group (the gateway's relay
// runs in its parent's), so a group is "that child and everything it started": the launcher waits
// for a whole group to be gone before it starts a replacement on the same ports and data.
import { readdirSync, readFileSync } from 'node:fs';

const hasProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** Pids in process group `group` whose command line contains `entry` (Linux; null elsewhere). */
function membersOf(group, entry) {
  if (!hasProc) return null;
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name: state, ppid, pgrp, ... (a zombie has exited already).
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== group || state === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(entry)) pids.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/**
 * Whether any process of the group still runs. With /proc only processes running `entry` count:
 * a group id recorded long ago may belong to someone else by now.
 */
export function groupAlive(group, entry) {
  const members = membersOf(group, entry);
  if (members) return members.length > 0;
  try {
    process.kill(-group, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

export function signalGroup(group, entry, signal) {
  const members = membersOf(group, entry);
  if (members) {
    for (const pid of members) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
    return;
  }
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
}

/** Resolves true once the group is gone, false when `timeoutMs` passed first. */
export async function waitGroupGone(group, entry, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(group, entry)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Waits for the group to end on its own, then kills what is left of it. */
export async function endGroup(group, entry, graceMs) {
  if (await waitGroupGone(group, entry, graceMs)) return;
  signalGroup(group, entry, 'SIGKILL');
  await waitGroupGone(group, entry, 5000);
}

/** Whether `pid` runs and its command line contains `script` (without /proc: whether it runs). */
export function processRuns(pid, script) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false;
  }
  if (!hasProc) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script);
  } catch {
    return false;
  }
}
