/** The generator's first line as code to copy: curl, Python, Node or Playwright, for the list's format (HTTP or SOCKS5). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { proxySnippet, SNIPPET_LANGUAGES, type ProxyEndpoint, type SnippetLanguage } from '@proxyhub/core';
import { TabStrip, tabIds } from './tab-strip';
import { Card, CopyButton } from './ui';

export function ProxySnippets({ proxy, endpoint, socks }: { proxy: { username: string; password: string }; endpoint: ProxyEndpoint; socks: boolean }) {
  const { t } = useTranslation('proxies');
  const [language, setLanguage] = useState<SnippetLanguage>('curl');
  const code = proxySnippet(language, proxy, endpoint, socks ? 'socks5' : 'http');
  const ids = tabIds(language, 'snippet');
  return (
    <Card
      title={t('snippets.title')}
      description={socks ? t('snippets.descriptionSocks') : t('snippets.description')}
      actions={<CopyButton text={code} label={t('copy')} copiedLabel={t('copied')} ariaLabel={t('snippets.copy')} />}
    >
      <TabStrip
        label={t('snippets.language')}
        idPrefix="snippet"
        tabs={SNIPPET_LANGUAGES}
        current={language}
        onSelect={(id) => setLanguage(id as SnippetLanguage)}
      />
      <pre className="snippet" role="tabpanel" id={ids.panel} aria-labelledby={ids.tab} data-testid="snippet" tabIndex={0}>
        <code>{code}</code>
      </pre>
    </Card>
  );
}
