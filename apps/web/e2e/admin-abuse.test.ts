/** The Abuse tab: look up who hit a host through us, then suspend them with a reason they get by mail. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogIn, screenshots, signUpAndLogIn, startE2E, type E2E } from './harness';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

/** A gateway's report of one connection of the customer's main proxy account to `target`. */
async function reportConnection(credentials: { proxyUserId: string; proxyPassword: string }, target: string, exitIp: string): Promise<void> {
  const gw = e2e.internal.gateway;
  const { account } = await gw.authorize.mutate({ proxyUserId: credentials.proxyUserId, password: credentials.proxyPassword });
  if (!account.ok) throw new Error(account.message);
  const at = Date.now() - 60_000;
  await gw.report.mutate({
    gatewayId: 'e2e-abuse',
    seq: 1,
    items: [],
    connections: [
      {
        id: randomUUID(),
        startedAt: at,
        endedAt: at + 5000,
        protocol: 'connect',
        target,
        proxyUserId: credentials.proxyUserId,
        proxyAccountId: account.proxyAccountId,
        country: '',
        state: '',
        city: '',
        session: 'rotating',
        bytesUp: 1200,
        bytesDown: 48_000,
        billedBytes: 49_200,
        outcome: 'ok',
        reason: '',
        exitIp,
      },
    ],
  });
}

describe('admin: abuse', () => {
  it('finds the connections to a host with the customer, and suspends them with a mailed reason', async () => {
    const page = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, page, 'Mallory Customer');
    const me = await page.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: { proxyUserId: string; proxyPassword: string } }).user);
    await reportConnection(me, 'login.bank.example:443', '203.0.113.7');

    const admin = await e2e.newPage();
    await adminLogIn(admin);
    await admin.getByRole('tab', { name: 'Abuse', exact: true }).click();
    await admin.getByRole('button', { name: 'Search' }).click();
    await admin.getByText('Give a target or an exit IP').waitFor();

    await admin.getByLabel('Target host').fill('bank.example');
    await admin.getByLabel('Exit IP').fill('203.0.113.7');
    await admin.getByRole('button', { name: 'Search' }).click();
    const table = admin.getByTestId('abuse-table');
    await expect.poll(() => table.innerText()).toContain(email);
    expect(await table.innerText()).toContain('login.bank.example:443');

    await admin.getByRole('button', { name: `Suspend with reason ${email}` }).click();
    await admin.getByRole('button', { name: 'Suspend and mail the reason' }).click();
    await admin.getByText('A reason is required').waitFor();
    const reason = 'Credential stuffing against bank.example (report #4411)';
    await admin.getByLabel('Reason for the customer').fill(reason);
    await admin.getByRole('button', { name: 'Suspend and mail the reason' }).click();
    await expect.poll(() => table.innerText()).toContain('Suspended');
    await screenshots(admin, 'admin-abuse');
    expect(await admin.getByRole('button', { name: `Suspend with reason ${email}` }).count()).toBe(0);

    await e2e.server.settle();
    const mail = e2e.server.mails(email).at(-1)!;
    expect(mail.subject).toBe('Your ProxyHub account is suspended');
    expect(mail.text).toContain(reason);
  });

  it('an owner edits the target policy (a bad pattern is named) and exempts one customer', async () => {
    const page = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, page, 'Exempt Customer');
    const admin = await e2e.newPage();
    await adminLogIn(admin);
    await admin.getByRole('tab', { name: 'Target policy', exact: true }).click();
    const rules = admin.getByLabel('Blocked domains');
    await rules.fill('bank.example\nnot a domain');
    await admin.getByRole('button', { name: 'Save policy' }).click();
    await admin.getByText('Blocked domains: invalid pattern "not a domain"').waitFor();
    await rules.fill('Bank.Example\n*.casino.example\n');
    await admin.getByLabel('Refuse targets given as an IP address').check();
    await admin.getByRole('button', { name: 'Save policy' }).click();
    await admin.getByText('Saved 2 rules.', { exact: false }).waitFor();
    await admin.reload();
    await admin.getByRole('tab', { name: 'Target policy', exact: true }).click();
    await expect.poll(() => admin.getByLabel('Blocked domains').inputValue()).toBe('bank.example\n*.casino.example');
    expect(await admin.getByLabel('Refuse targets given as an IP address').isChecked()).toBe(true);

    await admin.getByRole('tab', { name: /Users/ }).click();
    await admin.getByRole('button', { name: email }).click();
    const exempt = admin.getByLabel('Exempt from the target policy');
    expect(await exempt.isChecked()).toBe(false);
    // Controlled by the saved value: it turns on once the server has it.
    await exempt.click();
    await expect.poll(() => exempt.isChecked()).toBe(true);
    const id = new URL(admin.url()).searchParams.get('user')!;
    await expect
      .poll(async () =>
        admin.evaluate(
          async (u) => ((await (await fetch(`/admin/users/${u}`)).json()) as { profile: { targetPolicyExempt: boolean } }).profile.targetPolicyExempt,
          id,
        ),
      )
      .toBe(true);
  });
});
