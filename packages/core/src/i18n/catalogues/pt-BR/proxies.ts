import type { Translation } from '../../catalogue-shape';
import type en from '../en/proxies';

export default {} satisfies Translation<typeof en>;
