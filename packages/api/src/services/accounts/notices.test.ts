/** Every success message the server answers is one of the notices the web app words in each language. */
import { describe, expect, it } from 'vitest';
import { describeNotice } from '@proxyhub/core/i18n';
import { SUBSCRIBE_MESSAGE } from '../status/status-subscriptions';
import { FORGOT_MESSAGE, REGISTER_MESSAGE, RESEND_MESSAGE, VERIFY_FIRST } from './sign-in';
import { PASSWORD_CHANGED } from './user-settings';

describe('success messages', () => {
  it.each([
    [REGISTER_MESSAGE, 'REGISTERED'],
    [VERIFY_FIRST, 'VERIFY_FIRST'],
    [FORGOT_MESSAGE, 'RESET_LINK_SENT'],
    [RESEND_MESSAGE, 'VERIFICATION_RESENT'],
    [PASSWORD_CHANGED, 'PASSWORD_CHANGED'],
    [SUBSCRIBE_MESSAGE, 'STATUS_CHECK_INBOX'],
  ])('%s', (text, code) => {
    expect(describeNotice(text)).toEqual({ code, params: {} });
  });

  it('with their varying parts', () => {
    expect(describeNotice('Successfully redeemed 5120 MB')).toEqual({ code: 'REDEEMED', params: { mb: '5120' } });
    expect(describeNotice('Batch associated: 1 proxy account and 300 MB added to your account.')).toEqual({
      code: 'BATCH_ASSOCIATED_ONE',
      params: { n: '1', mb: '300' },
    });
    expect(describeNotice('Batch associated: 2 proxy accounts and 0 MB added to your account.')?.code).toBe('BATCH_ASSOCIATED');
    expect(describeNotice('Unsubscribed: a@b.co will get no more status mails.')).toEqual({ code: 'STATUS_UNSUBSCRIBED', params: { email: 'a@b.co' } });
  });
});
