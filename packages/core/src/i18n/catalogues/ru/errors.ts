import type { Translation } from '../../catalogue-shape';
import type en from '../en/errors';

export default {} satisfies Translation<typeof en>;
