import type { Translation } from '../../catalogue-shape';
import type en from '../en/network';

export default {} satisfies Translation<typeof en>;
