import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
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
  usePageTitle('Team invite');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const user = useSession().data!;
  const accept = trpc.team.accept.useMutation();
  const [joined, setJoined] = useState<{ accountId: string; name: string; role: string } | null>(null);
  return (
    <>
      <PageHeader title="Team invite" subtitle={`Signed in as ${user.email}: the invite must be for this address.`} />
      <Card title="Join the team">
        {joined ? (
          <>
            <Alert kind="success">
              <span data-testid="team-joined">
                You joined {joined.name} as {joined.role}.
              </span>
            </Alert>
            <Button onClick={() => switchAccount(joined.accountId)}>Switch to {joined.name}</Button>
          </>
        ) : (
          <>
            {accept.error && <Alert kind="error">{errorMessage(accept.error, 'Accepting the invite failed')}</Alert>}
            <Button loading={accept.isPending} onClick={() => accept.mutate({ token }, { onSuccess: setJoined })}>
              Accept Invite
            </Button>
          </>
        )}
      </Card>
    </>
  );
}
