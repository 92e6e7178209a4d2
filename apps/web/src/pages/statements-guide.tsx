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

/** /statements: how to check a signed daily statement, linked from the Connections page. */
export function StatementsGuidePage() {
  return (
    <PublicPage
      title="Checking a signed statement"
      lead="Each day with traffic, every proxy account gets a statement of what it moved and was billed, signed with our key. You can check one yourself, without trusting us."
    >
      <article className="card public-card prose" data-testid="statements-guide">
        <h2>What a statement holds</h2>
        <p>
          The Connections page lists the last 30 days&apos; statements, one per proxy account and UTC day; <strong>Statement</strong> downloads it as JSON and{' '}
          <strong>Connections CSV</strong> downloads the day&apos;s connection records it covers. A statement has these fields:
        </p>
        <ul>
          <li>
            <code>account</code> (<code>id</code>, <code>proxyUserId</code>) and <code>date</code> (the UTC day, <code>YYYY-MM-DD</code>);
          </li>
          <li>
            <code>totals</code> and one entry per country in <code>byCountry</code>: <code>bytes</code> moved (up and down), <code>billedBytes</code> and{' '}
            <code>connections</code> (byte counts are decimal strings);
          </li>
          <li>
            <code>connectionsDigest</code>: the SHA-256 (hex) of exactly the bytes of that day&apos;s Connections CSV;
          </li>
          <li>
            <code>previous</code>: the SHA-256 (hex) of the account&apos;s previous final statement, signature included (<code>null</code> for the first), so
            the statements form a chain that cannot be rewritten;
          </li>
          <li>
            <code>final</code>: a day is final 10 minutes after it ends; today&apos;s statement is provisional and may still grow;
          </li>
          <li>
            <code>signature</code>: Ed25519, base64.
          </li>
        </ul>
        <h2>What is signed</h2>
        <p>
          The signature covers every field except <code>signature</code> itself, written as canonical JSON (RFC 8785: keys sorted at every level, no whitespace)
          in UTF-8. <code>previous</code> is the SHA-256 of the previous statement written the same way, its signature included.
        </p>
        <h2>The public key</h2>
        <p>
          <a href="/api/statements/key">/api/statements/key</a> answers <code>{'{ "algorithm": "Ed25519", "publicKey": "<PEM>" }'}</code> to anyone, without
          signing in. The key does not change: every statement, old or new, checks against it.
        </p>
        <h2>Checking one</h2>
        <p>
          Any Ed25519 tool will do. With Node.js 18 or later and nothing else installed, save this as <code>verify-statement.mjs</code> and run it on a
          downloaded statement and, if you like, its CSV; it prints <code>OK</code> or <code>FAIL</code> for each check:
        </p>
        <pre className="snippet" data-testid="statement-verifier" tabIndex={0}>
          {verifier(window.location.origin)}
        </pre>
        <p>
          A changed byte anywhere in the statement fails the signature; a changed byte in the CSV fails the digest. To check the chain, compute the SHA-256 of
          the previous day&apos;s statement as canonical JSON and compare it with <code>previous</code>.
        </p>
      </article>
    </PublicPage>
  );
}
