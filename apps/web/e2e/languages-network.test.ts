/**
 * The admin panel's network screens in Russian and Chinese, in Chromium: Upstreams (the list with a
 * provider account, the cost warning and the add form), Catalogue, Gateways, Target policy and
 * Abuse show their headings, labels, buttons and table heads in the browser's language, with no
 * raw key, and dates, money and traffic in the language's own format; at phone size in Russian no
 * screen is wider than the phone.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkUpstreamBalances } from '@proxyhub/api';
import { startFakeProvider, type FakeProvider } from '@proxyhub/testing';
import { ADMIN, VIEWPORTS, recordBase, screenshots, signUpAndLogIn, startE2E, type E2E, type SessionUser } from './harness';

const GB = 1073741824n;
let e2e: E2E;
let provider: FakeProvider;

beforeAll(async () => {
  e2e = await startE2E();
  provider = await startFakeProvider('custom', { balanceBytes: 10n * GB });
  // A pool dearer than a GB sells for ($0.90), with a provider account read once: balance, status, last check.
  await e2e.internal.admin.createUpstream.mutate({
    name: 'Pool One',
    protocol: 'http',
    host: 'pool.example.net',
    port: 8000,
    usernameTemplate: 'user-{country}',
    password: 'pw',
    costPerGbCents: 120,
    account: { provider: 'custom', apiKey: provider.key, balanceUrl: `${provider.url}/balance`, usageUrl: `${provider.url}/usage` },
  });
  await checkUpstreamBalances(e2e.server.database.db, e2e.server.deps.secrets, { allowPrivate: true });
  // One customer's connection to a host, for the abuse look-up.
  const customer = await e2e.newPage();
  await signUpAndLogIn(e2e, customer, 'Network Customer');
  const me = await customer.evaluate(async () => ((await (await fetch('/auth/user')).json()) as { user: SessionUser }).user);
  const at = Date.now() - 60_000;
  await e2e.internal.gateway.report.mutate({
    gatewayId: 'e2e-languages',
    seq: 1,
    items: [],
    connections: [
      {
        ...(await recordBase(e2e, me)),
        id: randomUUID(),
        startedAt: at,
        endedAt: at + 5000,
        protocol: 'connect',
        target: 'login.bank.example:443',
        bytesUp: 1200,
        bytesDown: 48_000,
        outcome: 'ok',
        exitIp: '203.0.113.7',
      },
    ],
  });
});
afterAll(async () => {
  await provider?.close();
  await e2e?.close();
});

/** A gateway's heartbeat: up for the next 60 s. */
const beat = () =>
  e2e.internal.gateway.heartbeat.mutate({
    gatewayId: 'gw-edge-1:8080',
    version: '0.1.0',
    startedAt: new Date(),
    openTunnels: 7,
    bytesPerSecUp: 1024 * 1024,
    bytesPerSecDown: 5 * 1024 * 1024,
    leasedBytes: 32 * 1024 * 1024,
    upstreamErrors: 2,
  });

/** A signed-in admin's panel in a browser whose language is `locale` (signed in over the API, so no screen outside this task's is read). */
async function adminIn(locale: string): Promise<Page> {
  const ctx = await e2e.newContext({ locale });
  const page = await ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto('/');
  const signedIn = await page.evaluate(async (who) => {
    const r = await fetch('/auth/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(who) });
    return r.ok;
  }, ADMIN);
  expect(signedIn).toBe(true);
  await page.goto('/admin');
  await page.locator('#tab-upstreams').waitFor();
  return page;
}

const openTab = async (page: Page, id: string) => {
  await page.locator(`#tab-${id}`).click();
  await page.locator(`#panel-${id}`).waitFor();
};
const panelText = (page: Page) => page.locator('[role="tabpanel"]').innerText();
const heads = (page: Page, testId: string) => page.getByTestId(testId).locator('thead th').allTextContents();

/** i18next's keys of this namespace ("upstreams.head.name", "network:...") never reach the screen. */
const RAW_KEY = /\bnetwork:|\b(?:upstreams|days|test|account|form|reconciliation|catalogue|gateways|policy|abuse)\.[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)*\b/;

interface Expected {
  locale: string;
  upstreams: { heading: RegExp; heads: string[]; costWarning: RegExp; balance: string; status: string; addHeading: string; preset: string; add: string };
  catalogue: { heading: RegExp; search: string; save: string };
  gateways: { heading: string; heads: string[]; up: string; traffic: RegExp };
  policy: { heading: string; blocked: string; rawIp: string; save: string };
  abuse: { heading: string; target: string; search: string; heads: string[] };
  dateTime: RegExp;
}

const LANGUAGES: Expected[] = [
  {
    locale: 'ru-RU',
    upstreams: {
      heading: /^Апстримы \(1\)$/,
      heads: ['Название', 'Адрес', 'Страны', 'Вес', 'Состояние', 'Трафик', 'Затраты', 'Выручка', 'Маржа', 'Баланс', 'Аккаунт', 'Последняя проверка', ''],
      costWarning: /^Pool One стоит 1,20\s\$ за ГБ — дороже, чем 0,90\s\$ за ГБ, по которым он продаётся: каждый ГБ через него убыточен$/,
      balance: '10,00 ГБ',
      status: 'OK',
      addHeading: 'Добавить апстрим',
      preset: 'Шаблон провайдера',
      add: 'Добавить апстрим',
    },
    catalogue: { heading: /^Каталог \(15 из \d{3} стран\)$/, search: 'Поиск стран', save: 'Сохранить каталог' },
    gateways: {
      heading: 'Шлюзы (1)',
      heads: ['Шлюз', 'Статус', 'Версия', 'Запущен', 'Последний сигнал', 'Туннели', 'Исх./с', 'Вх./с', 'Зарезервировано', 'Ошибки апстримов'],
      up: 'Работает',
      traffic: /1,00\sМБ\s+5,00\sМБ\s+32,00\sМБ/,
    },
    policy: { heading: 'Политика адресов', blocked: 'Заблокированные домены', rawIp: 'Отклонять адреса, указанные как IP', save: 'Сохранить политику' },
    abuse: {
      heading: 'Поиск по жалобам',
      target: 'Целевой хост',
      search: 'Найти',
      heads: ['Когда', 'Клиент', 'Прокси-аккаунт', 'Адрес', 'Выходной IP', 'Исх. / вх.', 'Итог', ''],
    },
    // 28.11.2026, 07:36:07
    dateTime: /\d{2}\.\d{2}\.\d{4}, \d{1,2}:\d{2}:\d{2}/,
  },
  {
    locale: 'zh-CN',
    upstreams: {
      heading: /^上游（1）$/,
      heads: ['名称', '地址', '国家', '权重', '状态', '流量', '成本', '收入', '毛利', '余额', '账户', '上次检查', ''],
      costWarning: /^Pool One 每 GB 成本 US\$1\.20，高于每 GB US\$0\.90 的售价：经它的每 GB 流量都在亏损$/,
      balance: '10.00 GB',
      status: '正常',
      addHeading: '添加上游',
      preset: '供应商预设',
      add: '添加上游',
    },
    catalogue: { heading: /^国家目录（已选 15 \/ 共 \d{3} 个国家）$/, search: '搜索国家', save: '保存目录' },
    gateways: {
      heading: '网关（1）',
      heads: ['网关', '状态', '版本', '启动时间', '最后上报', '隧道', '上行/秒', '下行/秒', '已预留', '上游错误'],
      up: '在线',
      traffic: /1\.00\sMB\s+5\.00\sMB\s+32\.00\sMB/,
    },
    policy: { heading: '目标策略', blocked: '屏蔽的域名', rawIp: '拒绝以 IP 地址指定的目标', save: '保存策略' },
    abuse: { heading: '滥用查询', target: '目标主机', search: '搜索', heads: ['时间', '客户', '代理账户', '目标', '出口 IP', '上行 / 下行', '结果', ''] },
    // 2026/11/28 07:36:07
    dateTime: /\d{4}\/\d{1,2}\/\d{1,2} \d{2}:\d{2}:\d{2}/,
  },
];

describe('the network screens in other languages', () => {
  for (const lang of LANGUAGES) {
    it(`an admin in ${lang.locale} sees Upstreams, Catalogue, Gateways, Target policy and Abuse in it`, async () => {
      const page = await adminIn(lang.locale);
      const seen: string[] = [];

      await openTab(page, 'upstreams');
      const u = lang.upstreams;
      await page.getByRole('heading', { name: u.heading }).waitFor();
      const row = page.locator('tr[data-upstream="Pool One"]');
      await expect.poll(() => row.locator('[data-account-status]').innerText()).toBe(u.status);
      expect(await heads(page, 'upstreams-table')).toEqual(u.heads);
      expect(await row.getByTestId('upstream-cost-warning').innerText()).toMatch(u.costWarning);
      expect(await row.innerText()).toContain(u.balance);
      expect(await row.innerText()).toMatch(lang.dateTime);
      const form = page.getByTestId('upstream-form');
      await page.getByRole('heading', { name: u.addHeading }).waitFor();
      await form.getByLabel(u.preset).waitFor();
      await form.getByRole('button', { name: u.add }).waitFor();
      seen.push(await panelText(page));
      await screenshots(page, `languages-network-upstreams-${lang.locale}`);

      await openTab(page, 'catalogue');
      await page.getByRole('heading', { name: lang.catalogue.heading }).waitFor();
      await page.getByLabel(lang.catalogue.search).waitFor();
      await page.getByRole('button', { name: lang.catalogue.save }).waitFor();
      seen.push(await panelText(page));

      await beat();
      await openTab(page, 'gateways');
      const g = lang.gateways;
      await page.getByRole('heading', { name: g.heading }).waitFor();
      expect(await heads(page, 'gateways-table')).toEqual(g.heads);
      const edge = page.locator('tr[data-gateway="gw-edge-1:8080"]');
      expect(await edge.innerText()).toContain(g.up);
      expect(await edge.innerText()).toMatch(g.traffic);
      expect(await edge.innerText()).toMatch(lang.dateTime);
      seen.push(await panelText(page));

      await openTab(page, 'target-policy');
      const p = lang.policy;
      await page.getByRole('heading', { name: p.heading }).waitFor();
      await page.getByLabel(p.blocked).waitFor();
      await page.getByLabel(p.rawIp).waitFor();
      await page.getByRole('button', { name: p.save }).waitFor();
      seen.push(await panelText(page));

      await openTab(page, 'abuse');
      const a = lang.abuse;
      await page.getByRole('heading', { name: a.heading }).waitFor();
      await page.getByLabel(a.target).fill('bank.example');
      await page.getByRole('button', { name: a.search, exact: true }).click();
      const table = page.getByTestId('abuse-table');
      await expect.poll(() => table.innerText()).toContain('login.bank.example:443');
      expect(await heads(page, 'abuse-table')).toEqual(a.heads);
      expect(await table.innerText()).toMatch(lang.dateTime);
      seen.push(await panelText(page));
      await screenshots(page, `languages-network-abuse-${lang.locale}`);

      for (const text of seen) expect(text).not.toMatch(RAW_KEY);
    });
  }

  it('in Russian at phone size, no network screen is wider than the phone', async () => {
    const page = await adminIn('ru-RU');
    await page.setViewportSize(VIEWPORTS.phone);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    for (const id of ['upstreams', 'catalogue', 'gateways', 'target-policy', 'abuse']) {
      await openTab(page, id);
      await page.locator(`#panel-${id} h2, #panel-${id} h3`).first().waitFor();
      expect(await overflow(), id).toBeLessThanOrEqual(0);
    }
  });
});
