import { z } from 'zod';
import { emailField } from './auth';
import { requiredText } from './fields';

/** POST /api/status/subscribe: the address to mail incidents to, once its link is followed. */
export const statusSubscribeInput = z.object({ email: emailField });
export type StatusSubscribeInput = z.infer<typeof statusSubscribeInput>;

export const STATUS_LINK_INVALID = 'This link is invalid or expired';
/** The confirm and unsubscribe links of status mails. */
export const statusTokenInput = z.object({ token: requiredText(STATUS_LINK_INVALID, 256, STATUS_LINK_INVALID) });
export type StatusTokenInput = z.infer<typeof statusTokenInput>;

/** How often one server of the fleet probes every offered country (QUALITY_PROBE_MINUTES). */
export const DEFAULT_QUALITY_PROBE_MINUTES = 5;
/** A country whose last 3 probes pass less often than this is degraded (QUALITY_INCIDENT_OK_RATE). */
export const DEFAULT_QUALITY_INCIDENT_OK_RATE = 0.5;

/** GET /api/status/quality: one row per country probed. */
export interface QualityCountry {
  country: string;
  /** Share of probes that passed in the last 24 hours, 0-1; null with none. */
  okRate24h: number | null;
  p50ConnectMs: number | null;
  p95ConnectMs: number | null;
  /** Share of passing probes (24 hours) whose exit was in the country, 0-1; null with none. */
  exitCountryMatchRate: number | null;
  /** An incident is open for the country. */
  degraded: boolean;
  /** Per UTC day with probes, oldest first, up to 90. */
  days: Array<{ date: string; okRate: number }>;
}
export interface QualityBoard {
  countries: QualityCountry[];
}
