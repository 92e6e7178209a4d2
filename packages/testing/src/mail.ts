import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One message as the development mailer writes it to `<dataDir>/mail`. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

/** Mail in a server's outbox for one address, oldest first (file names sort in write order). */
export function readOutbox(dataDir: string, to: string): Mail[] {
  const dir = join(dataDir, 'mail');
  let files: string[] = [];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json')) // a .part file is still being written
      .sort();
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Mail).filter((m) => m.to === to);
}

/** The one-time token of a verification or reset link. */
export function linkToken(mail: Mail): string {
  const m = /token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!m) throw new Error(`no token in mail: ${mail.text}`);
  return m[1]!;
}
