/**
 * The customer audit log's actions (`GET /api/audit`'s `action`): stable names a program can match,
 * whatever the procedures are called, each with the words the Settings page shows after who did it
 * (the entry's `target`, when it has one, follows them). docs/teams.md lists them.
 */
export const ACCOUNT_AUDIT_SENTENCES = {
  'account.rename': 'renamed the account to',
  'account.update': 'changed the account settings:',
  'account.delete': 'deleted the account',
  'password.change': 'changed the password',
  'two_factor.setup': 'started setting up two-factor sign-in',
  'two_factor.enable': 'turned on two-factor sign-in',
  'two_factor.disable': 'turned off two-factor sign-in',
  'telegram.link': 'linked a Telegram chat',
  'telegram.unlink': 'unlinked the Telegram chat',
  'api_key.rotate_default': 'rotated the Default API key',
  'api_key.create': 'created the API key',
  'api_key.delete': 'deleted the API key',
  'proxy_password.rotate': 'rotated the proxy password',
  'proxy_account.create': 'created the proxy account',
  'proxy_account.update': 'changed the proxy account',
  'proxy_account.rotate_password': 'rotated the password of the proxy account',
  'line.test': 'tested a line of',
  'line.rotate': 'gave a new IP to a line of',
  'target_rules.update': 'set the target rules of',
  'target_rules.block': 'blocked targets for',
  'allowlist.update': 'changed the IP allow-list',
  'alerts.update': 'changed the alerts',
  'webhook.create': 'added the webhook',
  'webhook.delete': 'deleted the webhook',
  'webhook.resend': 'resent a delivery of the webhook',
  'code.redeem': 'redeemed the code',
  'batch.process': 'added the batch',
  'order.create': 'ordered',
  'order.cancel': 'cancelled the order',
  'gift_code.create': 'made the gift code',
  'gift_code.cancel': 'cancelled the gift code',
  'subscription.create': 'subscribed to the plan',
  'subscription.cancel': 'stopped renewing the subscription',
  'team.invite': 'invited',
  'team.revoke_invite': 'withdrew the invite of',
  'team.set_role': 'changed the role of',
  'team.remove': 'removed',
  'team.accept': 'joined the team',
} as const satisfies Record<string, string>;

export type AccountAuditAction = keyof typeof ACCOUNT_AUDIT_SENTENCES;
/** An action as a catalogue key (`api_key.create` → `api_key_create`: a dot would nest), for the Settings page's words in each language. */
export type AccountAuditKey<A extends string = AccountAuditAction> = A extends `${infer G}.${infer R}` ? `${G}_${R}` : A;
export const accountAuditKey = (action: AccountAuditAction) => action.replace('.', '_') as AccountAuditKey;
export const ACCOUNT_AUDIT_ACTIONS = Object.keys(ACCOUNT_AUDIT_SENTENCES) as [AccountAuditAction, ...AccountAuditAction[]];

/** "Dana created the proxy account scraper": what an entry says on the Settings page. */
export function accountAuditSentence(entry: { actor: { kind: 'member' | 'key'; name: string }; action: AccountAuditAction; target: string | null }): string {
  const who = entry.actor.kind === 'key' ? `API key ${entry.actor.name}` : entry.actor.name;
  return [who, ACCOUNT_AUDIT_SENTENCES[entry.action], entry.target].filter(Boolean).join(' ');
}
