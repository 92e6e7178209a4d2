import { describe, expect, it } from 'vitest';
import { formatBytesFor, formatCents, formatCountry, formatGbFor } from './format';

describe('traffic and money in each language', () => {
  it('English reads exactly as the product always has', () => {
    expect(formatGbFor('en', 1610612736n)).toBe('1.50 GB');
    expect(formatGbFor('en', 1234n * 1073741824n)).toBe('1234.00 GB');
    expect(formatGbFor('en', 1610612736n, true)).toBe('+1.50 GB');
    expect(formatBytesFor('en', 1040000)).toBe('1015.63 KB');
    expect(formatBytesFor('en', 40_000_000)).toBe('38.15 MB');
    expect(formatBytesFor('en', 600)).toBe('600 bytes');
    expect(formatBytesFor('en', 1)).toBe('1 byte');
    expect(formatCents('en', 1080)).toBe('$10.80');
    expect(formatCents('en', -50)).toBe('-$0.50');
  });
  it('other languages use their decimal sign, units and plural forms', () => {
    expect(formatGbFor('ru', 1610612736n)).toBe('1,50 ГБ');
    expect(formatBytesFor('ru', 1040000)).toBe('1015,63 КБ');
    expect(formatBytesFor('ru', 600)).toBe('600 байт');
    expect(formatGbFor('pt-BR', 1610612736n)).toBe('1,50 GB');
    expect(formatGbFor('zh-CN', 1610612736n)).toBe('1.50 GB');
    expect(formatCents('ru', 1080)).toMatch(/^10,80\s\$$/);
    expect(formatCountry('ru', 'US')).toBe('Соединенные Штаты');
    expect(formatCountry('es', 'DE')).toBe('Alemania');
  });
});
