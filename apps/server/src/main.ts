// Entry point. The parent watch starts before the server's modules load (a second or more on a busy
// machine): a launcher killed during that time must not leave this process behind.
import { exitWithParent } from '@proxyhub/core/node';

exitWithParent();
await import('./serve');
