/**
 * The target policy (owners): domain patterns the gateways refuse, one per line, and whether targets
 * given as an IP address are refused. The server checks every pattern and names a bad one.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { MAX_TARGET_POLICY_RULES } from '@proxyhub/core';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { Alert, Button, Card } from '../ui';

export function AdminTargetPolicy() {
  const policy = trpc.admin.targetPolicy.useQuery(undefined, { staleTime: 0 });
  const save = trpc.admin.setTargetPolicy.useMutation();
  const [rules, setRules] = useState('');
  const [blockRawIp, setBlockRawIp] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  useEffect(() => {
    if (!policy.data) return;
    setRules(policy.data.rules.join('\n'));
    setBlockRawIp(policy.data.blockRawIp);
  }, [policy.data]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setOutcome(null);
    const list = rules
      .split('\n')
      .map((r) => r.trim())
      .filter(Boolean);
    save.mutate(
      { rules: list, blockRawIp },
      {
        onSuccess: (p) => {
          setRules(p.rules.join('\n'));
          setOutcome({
            kind: 'success',
            text: `Saved ${p.rules.length} rule${p.rules.length === 1 ? '' : 's'}. Every gateway applies them within 10 seconds.`,
          });
        },
        onError: (err) => setOutcome({ kind: 'error', text: errorMessage(err, 'The policy could not be saved') }),
      },
    );
  };
  return (
    <Card
      title="Target policy"
      description={`Targets the gateways refuse (403 "Target blocked by policy"), also as a TLS server name inside a tunnel. One pattern per line, up to ${MAX_TARGET_POLICY_RULES.toLocaleString()}: example.com blocks it and every subdomain, *.example.com only its subdomains.`}
    >
      {policy.error && <Alert kind="error">{errorMessage(policy.error, 'The policy could not be loaded')}</Alert>}
      <form className="stack" onSubmit={onSubmit} noValidate>
        {outcome && <Alert kind={outcome.kind}>{outcome.text}</Alert>}
        <div className="field">
          <label htmlFor="target-policy-rules">Blocked domains</label>
          <textarea id="target-policy-rules" rows={10} className="mono" value={rules} onChange={(e) => setRules(e.target.value)} spellCheck={false} />
        </div>
        <label className="check">
          <input type="checkbox" checked={blockRawIp} onChange={(e) => setBlockRawIp(e.target.checked)} />
          <span>Refuse targets given as an IP address</span>
        </label>
        <div>
          <Button type="submit" loading={save.isPending} disabled={!policy.data}>
            Save policy
          </Button>
        </div>
      </form>
    </Card>
  );
}
