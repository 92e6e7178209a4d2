import type { Translation } from '../../catalogue-shape';
import type en from '../en/settings';

export default {} satisfies Translation<typeof en>;
