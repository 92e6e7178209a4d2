/**
 * The server's success messages: the English common catalogue's `notices` is the table (code -> the
 * exact English text). `describeNotice` finds which one a message is, so the web app shows it in the
 * reader's language while answers keep their English.
 */
import en from './catalogues/en/common';
import { templateMatcher } from './error-codes';

export type NoticeCode = keyof typeof en.notices;

export const describeNotice = templateMatcher<NoticeCode>(en.notices);
