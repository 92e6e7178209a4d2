import type { Translation } from '../../catalogue-shape';
import type en from '../en/bot';

export default {} satisfies Translation<typeof en>;
