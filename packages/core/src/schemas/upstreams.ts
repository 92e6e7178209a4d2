import { z } from 'zod';
import { presetPlaceholderIn } from '../upstream-placeholders';
import { templateProblem, type TemplateKind } from '../upstream-template';
import { asnField, zipField } from './proxies';
import { upstreamAccountField } from './upstream-accounts';

/** Upstream pools (admin.upstreams*) and the gateway fleet's heartbeat (gateway.heartbeat). */

export const UPSTREAM_PROTOCOL_OPTIONS = ['http', 'socks5'] as const;
export type UpstreamProtocol = (typeof UPSTREAM_PROTOCOL_OPTIONS)[number];

/** Placeholders a username template may hold (the password template may also hold `{password}`). */
export const UPSTREAM_TEMPLATE_PLACEHOLDERS = ['country', 'state', 'city', 'zip', 'asn', 'session', 'sid', 'minutes', 'seconds', 'hard'] as const;

/** A template in the upstream-template grammar: at most 255 characters, refused with what is wrong in it. */
const templateField = (field: string, kind: TemplateKind) =>
  z
    .string({ error: `${field} must be text` })
    .max(255, `${field} must be at most 255 characters`)
    .superRefine((value, ctx) => {
      const problem = templateProblem(value, kind);
      if (problem) ctx.addIssue({ code: 'custom', message: `${field}: ${problem}` });
      const placeholder = presetPlaceholderIn(value);
      if (placeholder) ctx.addIssue({ code: 'custom', message: `${field}: replace ${placeholder} with your account's` });
    });

const upstreamFields = {
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
  protocol: z.enum(UPSTREAM_PROTOCOL_OPTIONS, { error: "Protocol must be 'http' or 'socks5'" }),
  host: z
    .string({ error: 'Host is required' })
    .trim()
    .min(1, 'Host is required')
    .max(253, 'Host must be at most 253 characters')
    .regex(/^[A-Za-z0-9.:[\]-]+$/, 'Host must be a host name or an IP address'),
  port: z
    .number({ error: 'Port must be a number' })
    .int('Port must be an integer from 1 to 65535')
    .min(1, 'Port must be from 1 to 65535')
    .max(65535, 'Port must be from 1 to 65535'),
  usernameTemplate: templateField('Username template', 'username'),
  passwordTemplate: templateField('Password template', 'password'),
  // An empty password never works with a provider's account: refused rather than saved.
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(255, 'Password must be at most 255 characters'),
  /** Upper-case two-letter codes, as proxy usernames carry them; null serves every country. */
  countries: z
    .array(z.string().regex(/^[A-Z]{2}$/, 'Countries must be upper-case two-letter codes'), { error: 'Countries must be a list of country codes or null' })
    .min(1, 'Countries must list at least one country, or be null for all')
    .max(300, 'Countries lists at most 300 codes')
    .nullable(),
  weight: z
    .number({ error: 'Weight must be a number' })
    .int('Weight must be a positive integer')
    .min(1, 'Weight must be a positive integer')
    .max(1_000_000, 'Weight must be at most 1000000'),
  costPerGbCents: z
    .number({ error: 'Cost per GB must be a number of cents' })
    .int('Cost per GB must be a whole number of cents, 0 or more')
    .min(0, 'Cost per GB must be a whole number of cents, 0 or more')
    .max(1_000_000, 'Cost per GB must be at most 1000000 cents'),
  /** The provider's longest sticky session; a longer line is sent with it. Null: no limit. */
  maxSessionMinutes: z
    .number({ error: 'Longest session must be a number of minutes' })
    .int('Longest session must be a whole number of minutes')
    .min(1, 'Longest session must be from 1 to 10080 minutes')
    .max(10080, 'Longest session must be from 1 to 10080 minutes')
    .nullable(),
  enabled: z.boolean({ error: 'Enabled must be true or false' }),
};

export const NEW_UPSTREAM_DISABLED_MESSAGE = 'Enabled: a new upstream is saved disabled; enable it after a Test';

/** An upstream named in an admin path (`/admin/upstreams/:id`); an unknown or malformed id is a 404. */
const upstreamIdField = z.string({ error: 'Upstream id is required' }).trim().min(1, 'Upstream id is required').max(100, 'Upstream not found');

export const createUpstreamInput = z.object({
  name: upstreamFields.name,
  protocol: upstreamFields.protocol,
  host: upstreamFields.host,
  port: upstreamFields.port,
  usernameTemplate: upstreamFields.usernameTemplate.default(''),
  passwordTemplate: upstreamFields.passwordTemplate.default(''),
  password: upstreamFields.password,
  countries: upstreamFields.countries.default(null),
  weight: upstreamFields.weight.default(1),
  costPerGbCents: upstreamFields.costPerGbCents.default(0),
  maxSessionMinutes: upstreamFields.maxSessionMinutes.default(null),
  // Customers' traffic reaches a pool only after the admin has seen it work (Test, then Enable).
  enabled: z.literal(false, { error: NEW_UPSTREAM_DISABLED_MESSAGE }).default(false),
  account: upstreamAccountField.default(null),
});
export type CreateUpstreamInput = z.infer<typeof createUpstreamInput>;

/** Only the fields given change; an omitted password keeps the stored one. */
export const updateUpstreamInput = z.object({
  id: upstreamIdField,
  name: upstreamFields.name.optional(),
  protocol: upstreamFields.protocol.optional(),
  host: upstreamFields.host.optional(),
  port: upstreamFields.port.optional(),
  usernameTemplate: upstreamFields.usernameTemplate.optional(),
  passwordTemplate: upstreamFields.passwordTemplate.optional(),
  password: upstreamFields.password.optional(),
  countries: upstreamFields.countries.optional(),
  weight: upstreamFields.weight.optional(),
  costPerGbCents: upstreamFields.costPerGbCents.optional(),
  maxSessionMinutes: upstreamFields.maxSessionMinutes.optional(),
  enabled: upstreamFields.enabled.optional(),
  /** null removes the account; omitted keeps it. */
  account: upstreamAccountField.optional(),
});
export type UpdateUpstreamInput = z.infer<typeof updateUpstreamInput>;

export const upstreamIdInput = z.object({ id: upstreamIdField });

/** UPSTREAM_CHECK_URL's default: a public page answering with the address it was reached from. */
export const DEFAULT_UPSTREAM_CHECK_URL = 'https://api.ipify.org/?format=json';

/** `POST /admin/upstreams/:id/test`: one tunnel through the upstream as a line for this place would go. */
export const testUpstreamInput = z
  .object({
    id: upstreamIdField,
    country: z
      .string({ error: 'Country is required' })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, 'Country must be a two-letter country code'),
    state: z
      .string({ error: 'State must be text' })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z0-9]{1,16}$/, 'State must be a location code (A-Z, 0-9)')
      .optional(),
    city: z
      .string({ error: 'City must be text' })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z0-9]{1,16}$/, 'City must be a location code (A-Z, 0-9)')
      .optional(),
    /** 0: as a rotating line; 1 to 10080: sticky for that long. */
    minutes: z
      .number({ error: 'Minutes must be a number' })
      .int('Minutes must be an integer from 0 to 10080')
      .min(0, 'Minutes must be from 0 to 10080')
      .max(10080, 'Minutes must be from 0 to 10080')
      .default(10),
    url: z
      .url({ protocol: /^https?$/, error: 'URL must be an http:// or https:// address' })
      .max(2000, 'Url must be at most 2000 characters')
      .optional(),
    /** As a line's `~z`, `~a` and `h` (hard sticky) would ask: what the templates carry of them is what is sent. */
    zip: zipField.optional(),
    asn: asnField.optional(),
    hard: z.boolean({ error: 'Hard must be true or false' }).optional(),
  })
  .refine((v) => !(v.hard && v.minutes === 0), {
    path: ['hard'],
    message: 'Keep the same IP or fail needs a sticky session: a rotating line gets a new IP on every connection',
  });
export type TestUpstreamInput = z.infer<typeof testUpstreamInput>;

/** What a gateway reports every few seconds about itself (gateway.heartbeat, internal key). */
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const gatewayHeartbeatInput = z.object({
  gatewayId: z.string().min(1).max(128),
  version: z.string().min(1).max(64),
  startedAt: z.coerce.date(),
  openTunnels: count,
  bytesPerSecUp: count,
  bytesPerSecDown: count,
  leasedBytes: count,
  upstreamErrors: count,
});
export type GatewayHeartbeatInput = z.infer<typeof gatewayHeartbeatInput>;
