/** The generator's first line as code to copy: curl, Python, Node or Playwright, for the list's format (HTTP or SOCKS5). */
import { useState } from 'react';
import { proxySnippet, SNIPPET_LANGUAGES, type ProxyEndpoint, type SnippetLanguage } from '@proxyhub/core';
import { TabStrip, tabIds } from './tab-strip';
import { Card, CopyButton } from './ui';

export function ProxySnippets({ proxy, endpoint, socks }: { proxy: { username: string; password: string }; endpoint: ProxyEndpoint; socks: boolean }) {
  const [language, setLanguage] = useState<SnippetLanguage>('curl');
  const code = proxySnippet(language, proxy, endpoint, socks ? 'socks5' : 'http');
  const ids = tabIds(language, 'snippet');
  return (
    <Card
      title="Use It in Code"
      description={`The first line of your list${socks ? ' (SOCKS5)' : ''}, ready to run. It fetches a page that answers with the exit's IP address.`}
      actions={<CopyButton text={code} ariaLabel="Copy code" />}
    >
      <TabStrip label="Code language" idPrefix="snippet" tabs={SNIPPET_LANGUAGES} current={language} onSelect={(id) => setLanguage(id as SnippetLanguage)} />
      <pre className="snippet" role="tabpanel" id={ids.panel} aria-labelledby={ids.tab} data-testid="snippet" tabIndex={0}>
        <code>{code}</code>
      </pre>
    </Card>
  );
}
