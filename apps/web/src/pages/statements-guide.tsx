import { Trans, useTranslation } from 'react-i18next';
import { PublicPage } from '../components/public-site';

/**
 * A verifier a customer can run with Node alone (no package, no copy of our code): canonical JSON as
 * RFC 8785 builds it for a statement's values (strings, integers, booleans, null; keys sorted by
 * UTF-16 units, which is what `sort()` does), the key from the public path, the CSV's SHA-256.
 */
const verifier = (origin: string) => `// verify-statement.mjs: node verify-statement.mjs statement.json [connections.csv]
import { createHash, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const canonical = (v) =>
  Array.isArray(v)
    ? '[' + v.map(canonical).join(',') + ']'
    : v !== null && typeof v === 'object'
      ? '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}'
      : JSON.stringify(v);

const [statementFile, csvFile] = process.argv.slice(2);
const { signature, ...signed } = JSON.parse(readFileSync(statementFile, 'utf8'));
const { publicKey } = await (await fetch('${origin}/api/statements/key')).json();
const good = verify(null, Buffer.from(canonical(signed)), publicKey, Buffer.from(signature, 'base64'));
console.log('signature', good ? 'OK' : 'FAIL');
if (csvFile) {
  const digest = createHash('sha256').update(readFileSync(csvFile)).digest('hex');
  console.log('connections', digest === signed.connectionsDigest ? 'OK' : 'FAIL');
}
`;

/** The inline markup the guide's sentences use: field names and values as code, button names bold, the key's path as a link. */
const MARKUP = {
  c: <code />,
  b: <strong />,
  a: <a href="/api/statements/key" />,
  answer: <code>{'{ "algorithm": "Ed25519", "publicKey": "<PEM>" }'}</code>,
};

type StatementLine =
  'holds' | 'fieldAccount' | 'fieldTotals' | 'fieldDigest' | 'fieldPrevious' | 'fieldFinal' | 'fieldSignature' | 'signed' | 'key' | 'check' | 'after';

/** /statements: how to check a signed daily statement, linked from the Connections page. */
export function StatementsGuidePage() {
  const { t } = useTranslation('public');
  const line = (key: `statements.${StatementLine}`) => <Trans t={t} i18nKey={key} components={MARKUP} />;
  return (
    <PublicPage title={t('statements.title')} lead={t('statements.lead')}>
      <article className="card public-card prose" data-testid="statements-guide">
        <h2>{t('statements.holdsTitle')}</h2>
        <p>{line('statements.holds')}</p>
        <ul>
          <li>{line('statements.fieldAccount')}</li>
          <li>{line('statements.fieldTotals')}</li>
          <li>{line('statements.fieldDigest')}</li>
          <li>{line('statements.fieldPrevious')}</li>
          <li>{line('statements.fieldFinal')}</li>
          <li>{line('statements.fieldSignature')}</li>
        </ul>
        <h2>{t('statements.signedTitle')}</h2>
        <p>{line('statements.signed')}</p>
        <h2>{t('statements.keyTitle')}</h2>
        <p>{line('statements.key')}</p>
        <h2>{t('statements.checkTitle')}</h2>
        <p>{line('statements.check')}</p>
        <pre className="snippet" data-testid="statement-verifier" tabIndex={0}>
          {verifier(window.location.origin)}
        </pre>
        <p>{line('statements.after')}</p>
      </article>
    </PublicPage>
  );
}
