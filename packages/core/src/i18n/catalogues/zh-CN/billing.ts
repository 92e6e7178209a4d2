import type { Translation } from '../../catalogue-shape';
import type en from '../en/billing';

export default {} satisfies Translation<typeof en>;
