import type { Translation } from '../../catalogue-shape';
import type en from '../en/settings';

export default {
  language: {
    title: 'Idioma',
    description: 'El idioma de la aplicación, de tus correos y de las respuestas del bot de Telegram.',
    saveFailed: 'No se pudo guardar tu idioma',
  },
} satisfies Translation<typeof en>;
