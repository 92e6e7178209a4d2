/** A moment in the admin's local time; a dash when there is none. */
export const when = (d: string | Date | null | undefined) => (d ? new Date(d).toLocaleString() : '—');
