// A launcher's child outlives nothing: killed -9, the parent takes the child along even while the
// child's shutdown blocks its event loop (the loop's own force timer cannot fire then), or while the
// loop is held when the parent dies (the channel's 'disconnect' cannot be seen then), or while the
// child is still loading and has not yet looked at its parent (it would read its adopter's pid).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const parentScript = fileURLToPath(new URL('./fixtures/orphan-parent.mjs', import.meta.url));

function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const s = readFileSync(stat, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2)[0] !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('orphan.ts');
  } catch {
    return false;
  }
}

it.skipIf(process.platform !== 'linux').each([
  ['whose shutdown blocks its event loop', ''],
  ['whose event loop is already blocked when the parent dies', 'now'],
  ['that is still loading when the parent dies', 'late'],
])(
  'an orphan %s is still gone within seconds of its parent’s kill -9',
  async (_what, block) => {
    const parent = spawn(process.execPath, [parentScript], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ORPHAN_BLOCK: block },
    });
    const childPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      parent.once('exit', () => reject(new Error('the parent exited before its child was ready')));
    });
    expect(running(childPid)).toBe(true);
    if (block === 'now') await new Promise((r) => setTimeout(r, 1000)); // its loop is held 50 ms after it is ready
    const killedAt = Date.now();
    process.kill(parent.pid!, 'SIGKILL');
    while (running(childPid) && Date.now() - killedAt < 30_000) await new Promise((r) => setTimeout(r, 100));
    const goneAfter = Date.now() - killedAt;
    if (running(childPid)) process.kill(childPid, 'SIGKILL');
    // 500 ms of grace plus the 2 s the watchdog adds; without it the child would block for 120 s
    // (the second case: for ever, its loop never seeing the channel close; the third: for ever,
    // watching the pid of the process that adopted it).
    expect(goneAfter).toBeLessThan(15_000);
  },
  60_000,
);
