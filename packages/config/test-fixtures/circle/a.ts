// A fixture of no-cycles.test.ts: a and b import each other, b only a type.
import { b } from './b';

export interface A {
  name: string;
}
export const a = (): string => b().name;
