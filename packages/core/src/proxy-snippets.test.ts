import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { proxySnippet, SNIPPET_TARGET } from './proxy-snippets';

const endpoint = { host: 'gw.example.com', port: 8080 };
// Real lines are letters, digits, underscores and dashes; a hostile one proves the quoting.
const plain = { username: 'abc123_US-CA_60_QX7K2M9A', password: 'Pass1234word' };
const hostile = { username: "o'brien_US_60_TOKEN123", password: `p@ss:'"\\$(x)\`%` };

describe('proxy snippets', () => {
  it('curl: one argument each for the proxy URL and the page, the SOCKS5 scheme for a SOCKS5 line', () => {
    expect(proxySnippet('curl', plain, endpoint, 'http')).toBe(`curl -x 'http://${plain.username}:${plain.password}@gw.example.com:8080' '${SNIPPET_TARGET}'`);
    expect(proxySnippet('curl', plain, endpoint, 'socks5')).toContain(`-x 'socks5h://${plain.username}:${plain.password}@gw.example.com:8080'`);
    // The shell reads the hostile line back as the same two words, the URL parsing back to the same credentials.
    const argv = execFileSync('bash', ['-c', proxySnippet('curl', hostile, endpoint, 'http').replace(/^curl /, 'printf "%s\\n" ')], { encoding: 'utf8' })
      .trimEnd()
      .split('\n');
    expect(argv).toEqual(['-x', expect.any(String), SNIPPET_TARGET]);
    const url = new URL(argv[1]!);
    expect([decodeURIComponent(url.username), decodeURIComponent(url.password), url.host]).toEqual([hostile.username, hostile.password, 'gw.example.com:8080']);
  });

  it('Python, Node and Playwright carry the line as string literals of their language', () => {
    const python = proxySnippet('python', hostile, endpoint, 'socks5');
    expect(python).toContain('# pip install "requests[socks]"');
    const proxyUrl = execFileSync(
      'python3',
      [
        '-c',
        `import ast,sys\nt=ast.parse(sys.stdin.read())\nprint([n.value.value for n in t.body if getattr(n, 'targets', None) and n.targets[0].id == 'proxy'][0])`,
      ],
      {
        input: python,
        encoding: 'utf8',
      },
    ).trim();
    const u = new URL(proxyUrl);
    expect([u.protocol, decodeURIComponent(u.username), decodeURIComponent(u.password)]).toEqual(['socks5h:', hostile.username, hostile.password]);

    const node = proxySnippet('node', hostile, endpoint, 'socks5');
    expect(node).toContain("import { fetch, ProxyAgent } from 'undici';");
    expect(node).toContain('uri: "http://gw.example.com:8080"');
    const token = /Buffer\.from\((".*")\)/.exec(node)![1]!;
    expect(JSON.parse(token)).toBe(`${hostile.username}:${hostile.password}`);

    const playwright = proxySnippet('playwright', plain, endpoint, 'http');
    expect(playwright).toContain(`proxy: { server: "http://gw.example.com:8080", username: "${plain.username}", password: "${plain.password}" }`);
  });
});
