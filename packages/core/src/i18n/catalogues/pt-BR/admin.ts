import type { Translation } from '../../catalogue-shape';
import type en from '../en/admin';

export default {} satisfies Translation<typeof en>;
