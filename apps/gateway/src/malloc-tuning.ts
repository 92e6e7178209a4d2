import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A socket read outside the shared read buffers (shared-reads.ts: HTTP-forward clients, upstream
 * proxies) allocates a fresh 64 KiB buffer, freed when the GC collects it. With glibc's
 * default thresholds the freed top of the heap is handed back to the kernel (brk) and faulted in
 * again moments later, thousands of times a second under load (strace on the bench: ~6,000 brk
 * calls per 2 GiB relayed). MALLOC_TOP_PAD_/MALLOC_TRIM_THRESHOLD_ in the environment end it
 * (main.ts starts the relay process with them); as a second line, freeing one 32 MiB mmapped chunk at start raises
 * glibc's dynamic mmap/trim thresholds (to 32/64 MiB), which roughly halves the churn by itself.
 * With other allocators this is a harmless one-off allocation.
 */
export function tuneMallocForRelaying(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  let chunk: Buffer | null = Buffer.allocUnsafeSlow(32 * 1024 * 1024 - 4096);
  chunk[0] = 1;
  chunk = null;
  gc?.();
}
