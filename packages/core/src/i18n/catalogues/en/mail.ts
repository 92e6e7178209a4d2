/** The mail namespace in English: the spec's own words. */
export default {
  /** What every mail carries around its words: the link written out, the footer, the signature. */
  frame: {
    copyLink: 'Or copy this link into your browser:',
    tagline: 'residential proxies',
    support: 'Support: {{address}}',
    /** The words in a mail's text that name the seller's support address (they must appear in the texts below as they are here). */
    contactSupport: 'contact support',
    contactSupportAt: 'contact support at {{address}}',
    /** The plain-text part's button. */
    actionLine: '{{label}}: {{url}}',
  },
  verifyEmail: {
    subject: 'Verify your email',
    intro: 'Confirm your email address to start using ProxyHub.',
    action: 'Verify email',
    outro: 'This link expires in 24 hours. If you did not sign up, ignore this email.',
  },
  alreadyRegistered: {
    subject: 'Sign-in attempt',
    intro: 'Someone tried to create a ProxyHub account with this email, which already has one. You can sign in instead.',
    action: 'Sign in',
    outro: 'If this was not you, you can ignore this email.',
  },
  codeGuessing: {
    subject: 'Someone entered your password but not your code',
    intro:
      'Someone signed in to your ProxyHub account with your password, then entered 20 wrong two-factor codes. Your second factor kept them out, and sign-in with codes is paused for 15 minutes. Your password is known to them: change it now.',
    action: 'Change your password',
    outro: 'If it was you, nothing else is needed. Otherwise also replace your API key and proxy password in Settings.',
  },
  teamInvite: {
    subject: 'You are invited to a ProxyHub team',
    intro: '{{account}} invited you to their ProxyHub account as {{role}}. Sign in or create an account with this email address, then accept.',
    action: 'Accept the invite',
    outro: 'This link expires in 7 days and can be used once. If you do not know the sender, ignore this email.',
  },
  /** A team role as the invite names it. */
  role: {
    admin: 'admin',
    developer: 'developer',
    finance: 'finance',
    viewer: 'viewer',
  },
  resetPassword: {
    subject: 'Reset your password',
    intro: 'We received a request to reset your ProxyHub password. Choose a new one with the button below.',
    action: 'Reset password',
    outro: 'This link expires in 1 hour and can be used once. If you did not ask for it, ignore this email.',
  },
  passwordChanged: {
    subject: 'Your password was changed',
    intro: 'The password of your ProxyHub account was just changed and all sessions were signed out.',
    introInSettings: 'The password of your ProxyHub account was just changed in Settings and your other sessions were signed out.',
    action: 'Sign in',
    outro:
      'If you did not do this, reset your password at once and contact support. Your API key and proxy password did not change: if they may have leaked, replace them in Settings (Rotate API Key, Rotate Proxy Password), or call POST /auth/rotate-api-key and POST /auth/rotate-proxy-password. The old API key stops working at once, the old proxy password within 10 seconds.',
  },
  lowBalance: {
    subject: 'Low balance: {{remaining}} left',
    intro: 'Your ProxyHub Remaining Data is {{remaining}}, below your alert threshold of {{threshold}}. Top up to keep your proxies running.',
    action: 'Top up',
    outro: 'You get this mail because you set a low balance alert in Settings.',
  },
  outOfData: {
    subject: 'Out of data',
    intro: 'Your ProxyHub Remaining Data reached {{zero}}: your proxies stop until you top up.',
    action: 'Top up',
    outro: 'You get this mail because you set a low balance alert in Settings.',
  },
  usageThresholdPlan: {
    subject: '{{percent}} used: {{what}}',
    intro:
      'You have used {{used}} of {{limit}} ({{percent}}) of {{what}}. At 100% your traffic goes on from your pay-as-you-go credit until the next period starts.',
    action: 'Dashboard',
    outro: 'You get this mail because of the usage alert percents in Settings.',
  },
  usageThreshold: {
    subject: '{{percent}} used: {{what}}',
    intro:
      'You have used {{used}} of {{limit}} ({{percent}}) of {{what}}. At 100% the account stops until the limit is raised (a daily or monthly limit starts again with the next UTC day or month).',
    action: 'Proxy accounts',
    outro: 'You get this mail because of the usage alert percents in Settings.',
  },
  /** Which allowance a usage alert is about (mails and Telegram). */
  meter: {
    cap: 'the cap of proxy account "{{name}}"',
    daily: 'the daily limit of proxy account "{{name}}"',
    monthly: 'the monthly limit of proxy account "{{name}}"',
    plan: 'the allowance of plan "{{name}}" this period',
  },
  proxyAccountExpiring: {
    subject: 'Proxy account "{{name}}" expires soon',
    intro: 'Your proxy account "{{name}}" expires at {{expiresAt}} (UTC): from then on it is refused. Set a later expiry to keep it running.',
    action: 'Proxy accounts',
    outro: 'You get this mail three days before a proxy account you set to expire does.',
  },
  planRenewing: {
    subject: 'Your {{plan}} plan renews on {{endsOn}}',
    intro:
      'Your ProxyHub plan {{plan}} ends its period on {{endsOn}}. Pay the next period before then and it starts right when this one ends; unpaid, the plan lapses and your pay-as-you-go data stays as it is.',
    action: 'Pay the next period',
    outro: 'To stop renewing, cancel renewal under Billing. What is left of this period is yours until it ends.',
  },
  accountSuspended: {
    subject: 'Your ProxyHub account is suspended',
    intro: 'Your ProxyHub account has been suspended: sign-in, the API and your proxies are stopped. Reason: {{reason}}',
    action: 'Acceptable use policy',
    outro: 'If you think this is a mistake, reply to this email or contact support.',
  },
  statusConfirm: {
    subject: 'Confirm ProxyHub status mails',
    intro: 'Confirm that this address should get a mail when a country on the ProxyHub status board becomes degraded, and when it recovers.',
    action: 'Confirm subscription',
    outro: 'This link expires in 24 hours. If you did not ask for it, ignore this email: nothing will be sent.',
  },
  statusIncident: {
    subjectOpened: 'ProxyHub status: {{country}} degraded',
    subjectClosed: 'ProxyHub status: {{country}} recovered',
    /** Also the Telegram message of a subscribed chat. */
    opened: 'ProxyHub status: {{country}} is degraded. Test connections through {{country}} exits are failing.',
    closed: 'ProxyHub status: {{country}} has recovered. The last {{window}} test connections through {{country}} exits succeeded.',
    action: 'Open the status page',
    outro: 'You get this mail because you subscribed to ProxyHub status mails. Unsubscribe: {{url}}',
  },
} as const;
