import type { Translation } from '../../catalogue-shape';
import type en from '../en/common';

export default {
  language: 'Язык',
  loading: 'Загрузка…',
} satisfies Translation<typeof en>;
