/**
 * A row of tabs (the admin panel's, Settings' sections). On a narrow screen it scrolls sideways;
 * a fade and an arrow on the side with more tabs say so (`data-more`: left, right or both).
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';

export interface TabItem {
  id: string;
  label: ReactNode;
}

interface TabStripProps {
  /** The tab list's accessible name. */
  label: string;
  tabs: readonly TabItem[];
  current: string;
  onSelect: (id: string) => void;
  /** Ids are `<prefix>-tab-<id>` and `<prefix>-panel-<id>` (the panel's). */
  idPrefix?: string;
  /** False when the tabs switch what a panel shows rather than naming one (no aria-controls). */
  panels?: boolean;
}

export const tabIds = (id: string, prefix?: string) => {
  const p = prefix ? `${prefix}-` : '';
  return { tab: `${p}tab-${id}`, panel: `${p}panel-${id}` };
};

export function TabStrip({ label, tabs, current, onSelect, idPrefix, panels = true }: TabStripProps) {
  const strip = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState('');
  const measure = useCallback(() => {
    const el = strip.current;
    if (!el) return;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setMore(left && right ? 'both' : left ? 'left' : right ? 'right' : '');
  }, []);
  useEffect(() => {
    measure();
    const el = strip.current;
    if (!el) return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure, tabs.length]);
  const scrollBy = (dx: number) => strip.current?.scrollBy({ left: dx, behavior: 'smooth' });
  return (
    <div className="tabs-wrap" data-more={more || undefined}>
      <div className="tabs" role="tablist" aria-label={label} ref={strip} onScroll={measure}>
        {tabs.map((t) => {
          const ids = tabIds(t.id, idPrefix);
          return (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={ids.tab}
              aria-controls={panels ? ids.panel : undefined}
              aria-selected={current === t.id}
              className={`tab${current === t.id ? ' active' : ''}`}
              onClick={() => onSelect(t.id)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {(more === 'left' || more === 'both') && (
        <button type="button" className="tabs-more tabs-more-left" aria-label="Scroll tabs left" tabIndex={-1} onClick={() => scrollBy(-160)}>
          ‹
        </button>
      )}
      {(more === 'right' || more === 'both') && (
        <button type="button" className="tabs-more tabs-more-right" aria-label="Scroll tabs right" tabIndex={-1} onClick={() => scrollBy(160)}>
          ›
        </button>
      )}
    </div>
  );
}
