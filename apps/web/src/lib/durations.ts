/** How a line's session duration reads wherever one is chosen (the generator, entry port profiles). */
const DURATION_LABELS: Record<number, string> = { 0: 'Rotating (new IP per connection)', 1440: '1 day', 4320: '3 days', 10080: '7 days' };
export const durationLabel = (m: number) => DURATION_LABELS[m] ?? `${m} minutes`;
