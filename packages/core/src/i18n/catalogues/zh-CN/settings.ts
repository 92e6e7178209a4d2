import type { Translation } from '../../catalogue-shape';
import type en from '../en/settings';

export default {
  language: {
    title: '语言',
    description: '应用、邮件以及 Telegram 机器人回复所使用的语言。',
    saveFailed: '语言保存失败',
  },
} satisfies Translation<typeof en>;
