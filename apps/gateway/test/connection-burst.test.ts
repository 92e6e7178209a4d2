import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type Stack } from './helpers';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

// Opens N connections at once and prints how many the kernel completed within a second.
const CLIENT = `
const { connect } = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
process.stdin.once('data', () => {
  let connected = 0;
  const sockets = [];
  for (let i = 0; i < n; i++) {
    const s = connect({ host: '127.0.0.1', port }, () => connected++);
    s.on('error', () => undefined);
    sockets.push(s);
  }
  setTimeout(() => {
    process.stdout.write(String(connected));
    for (const s of sockets) s.destroy();
    process.exit(0);
  }, 1000);
});
process.stdout.write('ready\\n');
`;

it('a burst of 1,500 new connections while the gateway is busy waits in the queue instead of being dropped (a dropped SYN costs a second)', async () => {
  const n = 1500;
  const child = spawn(process.execPath, ['-e', CLIENT, String(stack.port), String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  while (!out.includes('ready')) await once(child.stdout, 'data');
  out = '';
  child.stdin.write('go\n');
  // The gateway (this process) accepts nothing while the burst arrives: only the kernel's queue holds it.
  const until = Date.now() + 1500;
  while (Date.now() < until);
  await once(child, 'exit');
  // Node's default queue (511) completed 512 of them; the rest would retry their SYN a second later.
  expect(Number(out)).toBe(n);
});
