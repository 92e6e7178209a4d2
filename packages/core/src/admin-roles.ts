/**
 * Admin roles. The server decides what a role may do (every admin procedure names the roles it
 * admits, owner-only unless it says otherwise); the panel reads the same table to hide the tabs a
 * role cannot use.
 */
export const ADMIN_ROLES = ['owner', 'finance', 'support'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** A new admin's role when the request names none: the least it can be. */
export const DEFAULT_ADMIN_ROLE: AdminRole = 'support';

export const NOT_ALLOWED_FOR_ROLE = 'Not allowed for your role';

/** The most a support admin may add or remove in one balance adjustment. */
export const SUPPORT_ADJUST_LIMIT_GB = 10;

/** The panel's areas and the roles that use them (owner uses every one). */
export const ADMIN_AREA_ROLES = {
  overview: ['owner', 'finance'],
  users: ['owner', 'finance', 'support'],
  /** Suspend, unsuspend, adjust a balance (support up to SUPPORT_ADJUST_LIMIT_GB at a time). */
  userActions: ['owner', 'support'],
  codes: ['owner', 'support'],
  payments: ['owner', 'finance'],
  pricing: ['owner', 'finance'],
  promotions: ['owner', 'finance'],
  plans: ['owner', 'finance'],
  audit: ['owner', 'finance', 'support'],
  network: ['owner'],
  /** Providers low or dry, drift: who hears of them on Telegram. */
  alerts: ['owner', 'finance'],
  catalogue: ['owner'],
  policy: ['owner'],
  admins: ['owner'],
  /** The seller's name, address, support email and the legal pages' dates. */
  site: ['owner'],
  /** Linking one's own chat (any admin); the broadcast in it is the owner's (the server refuses others). */
  telegram: ['owner', 'finance', 'support'],
} as const satisfies Record<string, readonly AdminRole[]>;
export type AdminArea = keyof typeof ADMIN_AREA_ROLES;

export function roleMayUse(role: AdminRole, area: AdminArea): boolean {
  return (ADMIN_AREA_ROLES[area] as readonly AdminRole[]).includes(role);
}
