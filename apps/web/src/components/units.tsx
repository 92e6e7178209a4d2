/** GB said once and exact bytes on demand: what the numbers on the money screens mean. */
import { exactBytes, GB_NOTE } from '@proxyhub/core';
import { formatBytes } from '../lib/bytes';
import { fmt } from '../lib/format';

/** The note beside GB figures: 2^30 bytes, not 10^9 (so 40,000,000 bytes read as 38.15 MB). */
export function GbNote() {
  return (
    <p className="units-note" data-testid="gb-note">
      {GB_NOTE} (2<sup>30</sup>); MB = 1,048,576 bytes. Hover a figure for its exact bytes.
    </p>
  );
}

/** A byte count for people (GB, or MB below a GB), the exact count in its tooltip. `gb`: always in GB, signed. */
export function Bytes({ bytes, gb, signed }: { bytes: bigint | number | string; gb?: boolean; signed?: boolean }) {
  const b = BigInt(bytes);
  const text = gb ? fmt.gb(b, signed) : formatBytes(b);
  return (
    <span title={exactBytes(b)} data-bytes={String(b)}>
      {text}
    </span>
  );
}
