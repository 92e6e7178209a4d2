import { fmt } from '../../lib/format';

/** A moment in the admin's local time, in the language on show; a dash when there is none. */
export const when = (d: string | Date | null | undefined) => (d ? fmt.dateTime(d) : '—');
