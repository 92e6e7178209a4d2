import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { TEAM_ROLES, type TeamRole } from '@proxyhub/core';
import { switchAccount } from '../acting-account';
import { Alert, Button, Card, PageHeader } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { usePageTitle } from '../lib/page-title';
import { useSession } from '../session';
import { trpc } from '../trpc';

/**
 * The mailed invite's page (`/team/accept?token=`): signed in (or after signing in or creating an
 * account with the invited address, which brings the person back here), Accept joins the team.
 */
export function TeamAcceptPage() {
  const { t } = useTranslation(['auth', 'common']);
  usePageTitle(t('team.title'));
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const user = useSession().data!;
  const accept = trpc.team.accept.useMutation();
  const [joined, setJoined] = useState<{ accountId: string; name: string; role: string } | null>(null);
  const roleName = (role: string): string => (TEAM_ROLES.some((r) => r === role) ? t(`common:teamRoles.${role as TeamRole}`) : role);
  return (
    <>
      <PageHeader title={t('team.title')} subtitle={t('team.signedInAs', { email: user.email })} />
      <Card title={t('team.join')}>
        {joined ? (
          <>
            <Alert kind="success">
              <span data-testid="team-joined">{t('team.joined', { name: joined.name, role: roleName(joined.role) })}</span>
            </Alert>
            <Button onClick={() => switchAccount(joined.accountId)}>{t('team.switchTo', { name: joined.name })}</Button>
          </>
        ) : (
          <>
            {accept.error && <Alert kind="error">{errorMessage(accept.error, t('team.failed'))}</Alert>}
            <Button loading={accept.isPending} onClick={() => accept.mutate({ token }, { onSuccess: setJoined })}>
              {t('team.accept')}
            </Button>
          </>
        )}
      </Card>
    </>
  );
}
