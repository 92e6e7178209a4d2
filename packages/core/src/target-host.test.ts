import { describe, expect, it } from 'vitest';
import { numericIPv4 } from './target-host';

describe('numericIPv4', () => {
  it('reads every numeric spelling of an IPv4 address as its dotted quad', () => {
    for (const s of ['127.1', '2130706433', '0x7f000001', '0X7F000001', '0x7f.0.0.1', '0177.0.0.1', '127.000.000.001', '127.0.0.1', '127.0.0.1.', '127.0.1'])
      expect(numericIPv4(s), s).toBe('127.0.0.1');
    expect(numericIPv4('0xa9fea9fe')).toBe('169.254.169.254');
    expect(numericIPv4('10.0x10203')).toBe('10.1.2.3');
  });

  it('is null for numbers that name no address, undefined for names and IPv6', () => {
    for (const s of ['256.0.0.1', '1.2.3.4.5', '08.0.0.1', '0x100000000', '127.0.0.0x100', '4294967296', '0x']) expect(numericIPv4(s), s).toBeNull();
    for (const s of ['example.com', '1.2.3.com', '0x7f.example', '::1', '', '.', '1..2', 'a1.2.3.4']) expect(numericIPv4(s), s).toBeUndefined();
  });
});
