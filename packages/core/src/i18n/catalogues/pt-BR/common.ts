import type { Translation } from '../../catalogue-shape';
import type en from '../en/common';

export default {
  language: 'Idioma',
  loading: 'Carregando…',
} satisfies Translation<typeof en>;
