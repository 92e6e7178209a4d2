import { useEffect } from 'react';

export const PRODUCT_NAME = 'ProxyHub';

/** The tab's title for the screen on show: "Dashboard · ProxyHub" (tabs and history tell screens apart). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
  }, [title]);
}
