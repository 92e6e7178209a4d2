// A fixture of no-cycles.test.ts: b imports only a's type, which still makes a circle.
import type { A } from './a';

export const b = (): A => ({ name: 'b' });
