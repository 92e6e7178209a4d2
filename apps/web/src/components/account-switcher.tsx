/**
 * The sidebar's account switcher: one's own account and the teams one is a member of. The choice
 * is sent with every call (`X-ProxyHub-Account`), so the whole app then shows the team's account.
 */
import { actingAccount, switchAccount } from '../acting-account';
import { trpc } from '../trpc';

export function AccountSwitcher() {
  const memberships = trpc.team.memberships.useQuery(undefined, { staleTime: 60_000 });
  const accounts = memberships.data?.accounts ?? [];
  const current = actingAccount() ?? '';
  if (!accounts.length && !current) return null;
  return (
    <label className="account-switcher">
      <span className="account-switcher-label">Account</span>
      <select aria-label="Account" data-testid="account-switcher" value={current} onChange={(e) => switchAccount(e.target.value || null)}>
        <option value="">My account</option>
        {accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {a.name} ({a.role})
          </option>
        ))}
      </select>
    </label>
  );
}
