/**
 * The sidebar's account switcher: one's own account and the teams one is a member of. The choice
 * is sent with every call (`X-ProxyHub-Account`), so the whole app then shows the team's account.
 */
import { useTranslation } from 'react-i18next';
import { actingAccount, switchAccount } from '../acting-account';
import { trpc } from '../trpc';

export function AccountSwitcher() {
  const { t } = useTranslation();
  const memberships = trpc.team.memberships.useQuery(undefined, { staleTime: 60_000 });
  const accounts = memberships.data?.accounts ?? [];
  const current = actingAccount() ?? '';
  if (!accounts.length && !current) return null;
  return (
    <label className="account-switcher">
      <span className="account-switcher-label">{t('accountSwitcher.label')}</span>
      <select aria-label={t('accountSwitcher.label')} data-testid="account-switcher" value={current} onChange={(e) => switchAccount(e.target.value || null)}>
        <option value="">{t('accountSwitcher.mine')}</option>
        {accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {t('accountSwitcher.team', { name: a.name, role: t(`teamRoles.${a.role}`) })}
          </option>
        ))}
      </select>
    </label>
  );
}
