/** GB said once and exact bytes on demand: what the numbers on the money screens mean. */
import { useCallback } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { exactBytes } from '@proxyhub/core';
import { GiB, MiB } from '@proxyhub/core/i18n';
import { formatBytes } from '../lib/bytes';
import { fmt } from '../lib/format';

/** A byte count written out for a tooltip, in the language on show: "1,610,612,736 bytes", "1 610 612 736 байт". */
export function useExactBytes(): (bytes: bigint | number | string) => string {
  // Never waits for the catalogue: a figure in a table that arrives later (billing, the admin panel)
  // must not send its whole page back to loading; until the words are there the tooltip is English.
  const { t, ready } = useTranslation('dashboard', { useSuspense: false });
  return useCallback(
    (bytes: bigint | number | string) => {
      const b = BigInt(bytes);
      if (!ready) return exactBytes(b);
      // The plural form only needs the count's last digits: a Number is exact enough for it.
      return t('units.exact', { count: Number(b < 0n ? -b : b), bytes: fmt.number(b) });
    },
    [t, ready],
  );
}

/** The note beside GB figures: 2^30 bytes, not 10^9 (so 40,000,000 bytes read as 38.15 MB). */
export function GbNote() {
  const { t } = useTranslation('dashboard');
  return (
    <p className="units-note" data-testid="gb-note">
      <Trans t={t} i18nKey="units.note" values={{ gb: fmt.number(GiB), mb: fmt.number(MiB) }} components={{ sup: <sup /> }} />
    </p>
  );
}

/** A byte count for people (GB, or MB below a GB), the exact count in its tooltip. `gb`: always in GB, signed. */
export function Bytes({ bytes, gb, signed }: { bytes: bigint | number | string; gb?: boolean; signed?: boolean }) {
  const exactBytes = useExactBytes();
  const b = BigInt(bytes);
  const text = gb ? fmt.gb(b, signed) : formatBytes(b);
  return (
    <span title={exactBytes(b)} data-bytes={String(b)}>
      {text}
    </span>
  );
}
