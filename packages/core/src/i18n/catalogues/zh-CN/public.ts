import type { Translation } from '../../catalogue-shape';
import type en from '../en/public';

export default {} satisfies Translation<typeof en>;
