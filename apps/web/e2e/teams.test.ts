import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots, signUpAndLogIn, startE2E, STRONG_PASSWORD, type E2E } from './harness';

let e2e: E2E;
let owner: Page;

beforeAll(async () => {
  e2e = await startE2E();
  owner = await e2e.newPage();
  await signUpAndLogIn(e2e, owner, 'Acme Team');
});
afterAll(async () => {
  await e2e?.close();
});

/** The invite link mailed to this address. */
async function inviteLink(email: string): Promise<string> {
  await e2e.server.settle();
  const mail = e2e.server.mails(email).at(-1)!;
  return /https?:\/\/\S+\/team\/accept\?token=\S+/.exec(mail.text)![0];
}

async function invite(email: string, role: string) {
  await owner.goto('/api?section=team');
  const form = owner.getByRole('form', { name: 'Invite a member' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Role').selectOption(role);
  await form.getByRole('button', { name: 'Send Invite' }).click();
  await owner.getByText(`Invite sent to ${email}.`).waitFor();
}

describe('teams in the browser', () => {
  it('invites, accepts, switches to the team account and back; the role bounds what the member sees', async () => {
    // The shared schema's words, and the server's refusal of one's own address.
    await owner.goto('/api?section=team');
    const form = owner.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('Email').fill('not-an-address');
    await form.getByRole('button', { name: 'Send Invite' }).click();
    await form.getByText('Please enter a valid email address').waitFor();

    const member = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, member, 'Dana Developer');
    await invite(email, 'developer');
    await owner.getByTestId('team-invite').getByText(email).waitFor();
    await screenshots(owner, 'settings-team-invited');

    await member.goto(await inviteLink(email));
    await member.getByRole('button', { name: 'Accept Invite' }).click();
    await member.getByTestId('team-joined').getByText('You joined Acme Team as developer.').waitFor();
    await member.getByRole('button', { name: 'Switch to Acme Team' }).click();
    await member.waitForURL('**/dashboard');
    await member.getByTestId('user-name').getByText('Acme Team').waitFor();
    await member.getByTestId('account-switcher').locator('option', { hasText: 'Acme Team (developer)' }).waitFor({ state: 'attached' });
    await expect.poll(() => member.getByTestId('account-switcher').inputValue()).not.toBe('');

    // A developer acting on the team cannot manage it.
    await member.goto('/api?section=team');
    await member.getByText('Your role (developer) cannot manage the team').waitFor();
    await screenshots(member, 'team-member-acting');
    // The team's keys, not its Default key (its owner's alone).
    await member.goto('/api');
    await member.getByTestId('api-key-form').waitFor();
    expect(await member.getByRole('heading', { name: 'API Key', exact: true }).count()).toBe(0);

    // Back to their own account.
    await member.getByTestId('account-switcher').selectOption('');
    await member.waitForURL('**/dashboard');
    await member.getByTestId('user-name').getByText('Dana Developer').waitFor();

    // The owner sees the member and removes them.
    await owner.goto('/api?section=team');
    const row = owner.getByTestId('team-member').filter({ hasText: email });
    await row.waitFor();
    await row.getByRole('button', { name: 'Remove' }).click();
    await owner.getByText(`${email} was removed.`).waitFor();
  });

  it('someone not signed in follows the link, signs in and comes back to accept it', async () => {
    const person = await e2e.newPage();
    const { email } = await signUpAndLogIn(e2e, person, 'Fin Finance');
    await person.getByRole('button', { name: 'Logout' }).click();
    await person.waitForURL((u) => u.pathname === '/');
    await invite(email, 'finance');
    await person.goto(await inviteLink(email));
    await person.waitForURL('**/login');
    await person.getByLabel('Email').fill(email);
    await person.getByLabel('Password').fill(STRONG_PASSWORD);
    await person.getByRole('button', { name: 'Sign In', exact: true }).click();
    await person.waitForURL('**/team/accept?token=*');
    await person.getByRole('button', { name: 'Accept Invite' }).click();
    await person.getByText('You joined Acme Team as finance.').waitFor();

    // The owner's audit log says who did what in a sentence, with the action's stable name beside it.
    await owner.goto('/api?section=audit');
    const entry = owner.getByTestId('audit-entry').filter({ hasText: `Acme Team invited ${email} as finance` });
    await entry.waitFor();
    expect(await entry.locator('code').textContent()).toBe('team.invite');
    await owner.getByTestId('audit-entry').filter({ hasText: 'Acme Team removed' }).first().waitFor();
  });
});
