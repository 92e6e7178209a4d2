import { memo, useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatProxy, ROTATING_DURATION_MINUTES, type GeneratedProxy, type ProxyEndpoint, type ProxyFormat } from '@proxyhub/core';
import { NewIpButton, type NewIp } from './new-ip';

/** One line's height in CSS pixels: the rows are placed by it, so it is set here and not in the stylesheet. */
const ROW_PX = 21;
/** Space above the first line and below the last. */
const PAD_PX = 14;

/**
 * A generated list, read-only, up to 10,000 lines. Only the rows in view (and a few either side) are
 * in the DOM, so generating or switching the format costs about the same for 10 proxies as for
 * 10,000; the whole text is built by Copy All and the download, from the same `formatProxy`. The
 * list is a focusable region (arrow keys and Page Down scroll it), each row is plain selectable
 * text and tells assistive technology its place in the whole list. Memoised: the form above it
 * re-renders as a location is chosen, and the list's rows need not. With `newIp`, each sticky row
 * ends with its "New IP" action (not part of the text a selection copies).
 */
export const ProxyLines = memo(function ProxyLines({
  id,
  label,
  list,
  format,
  placeholder,
  newIp,
}: {
  id: string;
  label: string;
  list: { proxies: readonly GeneratedProxy[]; endpoint: ProxyEndpoint } | null;
  format: ProxyFormat;
  placeholder: string;
  newIp?: NewIp | undefined;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const count = list?.proxies.length ?? 0;
  const rows = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    paddingStart: PAD_PX,
    paddingEnd: PAD_PX,
    overscan: 12,
  });
  // A new list opens at its first line; a format switch keeps the place.
  const proxies = list?.proxies;
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [proxies]);

  return (
    <div ref={scroller} id={id} className="proxy-output" role="region" aria-label={label} tabIndex={0} data-testid={id}>
      {!list || count === 0 ? (
        <div className="proxy-output-empty">{placeholder}</div>
      ) : (
        <div className="proxy-lines" role="list" style={{ height: rows.getTotalSize() }}>
          {rows.getVirtualItems().map((row) => (
            <div
              key={row.index}
              className="proxy-line"
              role="listitem"
              aria-posinset={row.index + 1}
              aria-setsize={count}
              style={{ height: ROW_PX, lineHeight: `${ROW_PX}px`, transform: `translateY(${row.start}px)` }}
            >
              {formatProxy(list.proxies[row.index]!, format, list.endpoint)}
              {newIp && list.proxies[row.index]!.duration !== ROTATING_DURATION_MINUTES && (
                <NewIpButton username={list.proxies[row.index]!.username} newIp={newIp} compact />
              )}
            </div>
          ))}
        </div>
      )}
    </div>
  );
});
