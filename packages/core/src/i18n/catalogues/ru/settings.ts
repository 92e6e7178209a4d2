import type { Translation } from '../../catalogue-shape';
import type en from '../en/settings';

export default {
  language: {
    title: 'Язык',
    description: 'Язык приложения, писем и ответов бота в Telegram.',
    saveFailed: 'Не удалось сохранить язык',
  },
} satisfies Translation<typeof en>;
