import type { Translation } from '../../catalogue-shape';
import type en from '../en/mail';

export default {} satisfies Translation<typeof en>;
