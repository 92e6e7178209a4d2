/**
 * A request's language: the visitor's choice (the `locale` cookie) when they made one, else the best
 * of ours for their browser's Accept-Language, else English.
 */
import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { LOCALE_COOKIE, isLocale, type Locale } from '@proxyhub/core/i18n';
import { pickLocale } from '@proxyhub/core/i18n/server';

export function requestLocale(req: FastifyRequest): Locale {
  const chosen = req.cookies?.[LOCALE_COOKIE];
  if (isLocale(chosen)) return chosen;
  return pickLocale(new Negotiator({ headers: { 'accept-language': req.headers['accept-language'] } }).languages());
}
