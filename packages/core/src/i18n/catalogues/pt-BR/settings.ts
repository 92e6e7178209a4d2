import type { Translation } from '../../catalogue-shape';
import type en from '../en/settings';

export default {
  language: {
    title: 'Idioma',
    description: 'O idioma do app, dos seus e-mails e das respostas do bot do Telegram.',
    saveFailed: 'Não foi possível salvar seu idioma',
  },
} satisfies Translation<typeof en>;
