import type { Translation } from '../../catalogue-shape';
import type en from '../en/auth';

export default {} satisfies Translation<typeof en>;
