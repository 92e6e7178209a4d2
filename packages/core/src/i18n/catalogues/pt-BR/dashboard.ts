import type { Translation } from '../../catalogue-shape';
import type en from '../en/dashboard';

export default {} satisfies Translation<typeof en>;
