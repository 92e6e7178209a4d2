import type { Translation } from '../../catalogue-shape';
import type en from '../en/common';

export default {
  language: '语言',
  loading: '加载中…',
} satisfies Translation<typeof en>;
