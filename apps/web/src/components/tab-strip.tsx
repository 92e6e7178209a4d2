/**
 * A row of tabs (the admin panel's, Settings' sections). On a narrow screen it scrolls sideways;
 * a fade and an arrow on the side with more tabs say so (`data-more`: left, right or both).
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation();
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
        {tabs.map((tab) => {
          const ids = tabIds(tab.id, idPrefix);
          return (
            <button
              key={tab.id}
              type="button"
              role="tab"
              id={ids.tab}
              aria-controls={panels ? ids.panel : undefined}
              aria-selected={current === tab.id}
              className={`tab${current === tab.id ? ' active' : ''}`}
              onClick={() => onSelect(tab.id)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      {(more === 'left' || more === 'both') && (
        <button type="button" className="tabs-more tabs-more-left" aria-label={t('tabs.scrollLeft')} tabIndex={-1} onClick={() => scrollBy(-160)}>
          ‹
        </button>
      )}
      {(more === 'right' || more === 'both') && (
        <button type="button" className="tabs-more tabs-more-right" aria-label={t('tabs.scrollRight')} tabIndex={-1} onClick={() => scrollBy(160)}>
          ›
        </button>
      )}
    </div>
  );
}
