import { randomString, randomToken } from './crypto';

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Safe inside a proxy username: lowercase alphanumeric, no '_' or '-'. */
export function newProxyUserId(): string {
  return randomString(LOWER_ALNUM, 10);
}

/** Alphanumeric only: never ':' or '@', which would break the list formats. ~95 bits. */
export function newProxyPassword(): string {
  return randomString(ALNUM, 16);
}

export function newApiKey(): string {
  return `pk_${randomToken(24)}`;
}
