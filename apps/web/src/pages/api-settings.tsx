import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { zodResolver } from '@hookform/resolvers/zod';
import { processBatchInput, withGbBeside } from '@proxyhub/core';
import { AlertSettings } from '../components/alert-settings';
import { ApiKeySettings } from '../components/api-key-settings';
import { IpAllowlistSettings } from '../components/ip-allowlist-settings';
import { TargetRulesSettings } from '../components/target-rules-settings';
import { WebhookSettings } from '../components/webhook-settings';
import { DeleteAccountSettings } from '../components/delete-account-settings';
import { GiftCodeSettings } from '../components/gift-code-settings';
import { PasswordSettings } from '../components/password-settings';
import { ProfileSettings } from '../components/profile-settings';
import { LanguageSettings } from '../components/language-settings';
import { ReferralSettings } from '../components/referral-settings';
import { AuditSettings, TeamSettings } from '../components/team-settings';
import { TelegramSettings } from '../components/telegram-settings';
import { TwoFactorSettings } from '../components/two-factor-settings';
import { SecretField } from '../components/secret-field';
import { TabStrip, tabIds } from '../components/tab-strip';
import { Button, Card, PageHeader, useOutcome } from '../components/ui';
import { errorMessage } from '../lib/errors';
import { FormField, useActionForm } from '../lib/form';
import { useSession, useSessionActions, type User } from '../session';
import { trpc } from '../trpc';
import { usePageTitle } from '../lib/page-title';

/** Settings' sections: tabs under the spec's /api route, the chosen one in `?section=` (a link or a reload keeps it). */
const SECTIONS = [
  { id: 'api', label: 'API & proxy' },
  { id: 'security', label: 'Security' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'account', label: 'Account' },
  { id: 'team', label: 'Team' },
  { id: 'audit', label: 'Audit' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

export function ApiSettingsPage() {
  usePageTitle('Settings');
  const [params, setParams] = useSearchParams();
  const current: SectionId = SECTIONS.find((s) => s.id === params.get('section'))?.id ?? 'api';
  const ids = tabIds(current, 'settings');
  return (
    <>
      <PageHeader title="Settings" subtitle="Your API key and proxy password, security, notifications and account." />
      <TabStrip
        label="Settings sections"
        idPrefix="settings"
        tabs={SECTIONS}
        current={current}
        onSelect={(id) => setParams(id === 'api' ? {} : { section: id })}
      />
      <section className="settings-panel" role="tabpanel" id={ids.panel} aria-labelledby={ids.tab}>
        {current === 'api' && <ApiAndProxySection />}
        {current === 'security' && (
          <>
            <TwoFactorSettings />
            <PasswordSettings />
          </>
        )}
        {current === 'notifications' && (
          <>
            <AlertSettings />
            <TelegramSettings />
            <WebhookSettings />
          </>
        )}
        {current === 'team' && <TeamSettings />}
        {current === 'audit' && <AuditSettings />}
        {current === 'account' && (
          <>
            <ProfileSettings />
            <LanguageSettings />
            <GiftCodeSettings />
            <ReferralSettings />
            <DeleteAccountSettings />
          </>
        )}
      </section>
    </>
  );
}

function ApiAndProxySection() {
  const user = useSession().data!;
  const { setUser, refresh } = useSessionActions();
  const utils = trpc.useUtils();
  // The key list shows the Default key's prefix: it changes with the rotation.
  const rotateKey = trpc.auth.rotateApiKey.useMutation({ onSuccess: () => utils.apiKeys.list.invalidate() });
  const rotatePassword = trpc.auth.rotateProxyPassword.useMutation();
  // Show the new value at once, then re-read the session (the dashboard and generator use it too).
  const showNew = async (patch: Partial<User>) => {
    setUser({ ...user, ...patch });
    await refresh();
  };
  return (
    <>
      {/* The team's Default key is its owner's alone (docs/teams.md): a member acting on it sees the team's other keys. */}
      {!user.actor && (
        <>
          <Card
            title="API Key"
            description={
              <>
                Your Default key: every right, account settings included. Keep it secret; give programs a key with only the scopes they need below. Every call
                is described in the{' '}
                <a href="/docs" target="_blank" rel="noreferrer">
                  API reference
                </a>
                .
              </>
            }
          >
            <SecretField id="api-key" label="API key" value={user.apiKey} />
            <RotateCredential
              name="API Key"
              what="your API key"
              warning="Your current API key stops working at once. Tools that use it need the new key."
              done="New API key created. The old key no longer works."
              rotate={async () => showNew({ apiKey: (await rotateKey.mutateAsync()).apiKey })}
              pending={rotateKey.isPending}
            />
          </Card>
        </>
      )}
      <ApiKeySettings />
      <Card title="Proxy Password" description={`The password of your proxy user ${user.proxyUserId}, used in every proxy you generate.`}>
        <SecretField id="proxy-password" label="Proxy password" value={user.proxyPassword} />
        <RotateCredential
          name="Proxy Password"
          what="your proxy password"
          warning="Proxies using your current password stop working within 10 seconds, open connections included. Generate your proxy list again afterwards."
          done="New proxy password created. Generate your proxy list again."
          rotate={async () => showNew({ proxyPassword: (await rotatePassword.mutateAsync()).proxyPassword })}
          pending={rotatePassword.isPending}
        />
      </Card>
      <IpAllowlistSettings />
      <TargetRulesSettings />
      <AssociateBatch />
    </>
  );
}

/** A button that replaces a leaked credential, after the user confirms what will stop working. */
function RotateCredential({
  name,
  what,
  warning,
  done,
  rotate,
  pending,
}: {
  name: string;
  /** The credential in a sentence ("your API key"). */
  what: string;
  warning: string;
  done: string;
  rotate: () => Promise<void>;
  pending: boolean;
}) {
  const [confirming, setConfirming] = useState(false);
  const { setOutcome: setResult, alert: resultAlert } = useOutcome();
  async function onConfirm() {
    try {
      await rotate();
      setResult({ kind: 'success', text: done });
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, `Failed to replace ${what}`) });
    }
    setConfirming(false);
  }
  return (
    <>
      {confirming ? (
        <div className="confirm-box" role="group" aria-label={`Confirm replacing ${what}`}>
          <p>
            <strong>Replace {what}?</strong> {warning}
          </p>
          <div className="card-actions">
            <Button variant="danger" loading={pending} onClick={() => void onConfirm()}>
              Yes, rotate {name}
            </Button>
            <Button variant="secondary" disabled={pending} onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <div className="card-actions">
          <Button
            variant="secondary"
            onClick={() => {
              setResult(null);
              setConfirming(true);
            }}
          >
            Rotate {name}
          </Button>
        </div>
      )}
      {resultAlert}
    </>
  );
}

const batchResolver = zodResolver(processBatchInput);

function AssociateBatch() {
  const { refresh } = useSessionActions();
  const process = trpc.credits.processBatch.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    batchResolver,
    { batchId: '' },
    async (input, f) => {
      const r = await process.mutateAsync(input);
      f.reset();
      await refresh();
      return withGbBeside(r.message, r.creditedBytes);
    },
    (err) => errorMessage(err, 'Failed to process batch'),
  );

  return (
    <Card title="Associate Batch Proxies" description="Bought a batch of proxy accounts from our shop? Enter its Batch ID to add it to your account.">
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label="Associate batch proxies">
        <FormField form={form} name="batchId" label="Batch ID" autoComplete="off" spellCheck={false} placeholder="e.g. BT7K2M9QX4HD8R3VWZ6P" />
        <Button type="submit" loading={process.isPending}>
          Associate Batch
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
