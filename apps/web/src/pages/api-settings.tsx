import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Trans, useTranslation } from 'react-i18next';
import { zodResolver } from '@hookform/resolvers/zod';
import { processBatchInput } from '@proxyhub/core';
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
import { creditedNotice } from '../lib/notice-text';

/** Settings' sections: tabs under the spec's /api route, the chosen one in `?section=` (a link or a reload keeps it). */
const SECTIONS = ['api', 'security', 'notifications', 'account', 'team', 'audit'] as const;
type SectionId = (typeof SECTIONS)[number];

export function ApiSettingsPage() {
  const { t } = useTranslation('settings');
  usePageTitle(t('title'));
  const [params, setParams] = useSearchParams();
  const current: SectionId = SECTIONS.find((s) => s === params.get('section')) ?? 'api';
  const ids = tabIds(current, 'settings');
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <TabStrip
        label={t('sectionsLabel')}
        idPrefix="settings"
        tabs={SECTIONS.map((id) => ({ id, label: t(`sections.${id}`) }))}
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
  const { t } = useTranslation('settings');
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
            title={t('apiKey.title')}
            description={<Trans t={t} i18nKey="apiKey.description" components={{ docs: <a href="/docs" target="_blank" rel="noreferrer" /> }} />}
          >
            <SecretField id="api-key" label={t('apiKey.label')} value={user.apiKey} />
            <RotateCredential
              texts={t('apiKey.rotate', { returnObjects: true })}
              rotate={async () => showNew({ apiKey: (await rotateKey.mutateAsync()).apiKey })}
              pending={rotateKey.isPending}
            />
          </Card>
        </>
      )}
      <ApiKeySettings />
      <Card title={t('proxyPassword.title')} description={t('proxyPassword.description', { user: user.proxyUserId })}>
        <SecretField id="proxy-password" label={t('proxyPassword.label')} value={user.proxyPassword} />
        <RotateCredential
          texts={t('proxyPassword.rotate', { returnObjects: true })}
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
  texts,
  rotate,
  pending,
}: {
  /** The credential's own sentences (each language words "your API key" in its own case). */
  texts: { button: string; confirmLabel: string; question: string; warning: string; yes: string; done: string; failed: string };
  rotate: () => Promise<void>;
  pending: boolean;
}) {
  const { t } = useTranslation('settings');
  const [confirming, setConfirming] = useState(false);
  const { setOutcome: setResult, alert: resultAlert } = useOutcome();
  async function onConfirm() {
    try {
      await rotate();
      setResult({ kind: 'success', text: texts.done });
    } catch (err) {
      setResult({ kind: 'error', text: errorMessage(err, texts.failed) });
    }
    setConfirming(false);
  }
  return (
    <>
      {confirming ? (
        <div className="confirm-box" role="group" aria-label={texts.confirmLabel}>
          <p>
            <strong>{texts.question}</strong> {texts.warning}
          </p>
          <div className="card-actions">
            <Button variant="danger" loading={pending} onClick={() => void onConfirm()}>
              {texts.yes}
            </Button>
            <Button variant="secondary" disabled={pending} onClick={() => setConfirming(false)}>
              {t('words.cancel')}
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
            {texts.button}
          </Button>
        </div>
      )}
      {resultAlert}
    </>
  );
}

const batchResolver = zodResolver(processBatchInput);

function AssociateBatch() {
  const { t } = useTranslation('settings');
  const { refresh } = useSessionActions();
  const process = trpc.credits.processBatch.useMutation();
  const { form, onSubmit, outcome } = useActionForm(
    batchResolver,
    { batchId: '' },
    async (input, f) => {
      const r = await process.mutateAsync(input);
      f.reset();
      await refresh();
      return creditedNotice(r.message, r.creditedBytes);
    },
    (err) => errorMessage(err, t('batch.failed')),
  );

  return (
    <Card title={t('batch.title')} description={t('batch.description')}>
      <form className="form inline-form" onSubmit={onSubmit} noValidate aria-label={t('batch.formLabel')}>
        <FormField form={form} name="batchId" label={t('batch.field')} autoComplete="off" spellCheck={false} placeholder={t('batch.placeholder')} />
        <Button type="submit" loading={process.isPending}>
          {t('batch.submit')}
        </Button>
      </form>
      {outcome}
    </Card>
  );
}
