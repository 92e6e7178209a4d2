import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that drive a browser or build and start whole processes take 30-160 s each; vitest's own
 * order (project by project, then by size or last duration) starts the browser files last, so the
 * run ends with a long tail on two cores. These go first, the rest keep vitest's order.
 */
const SLOW = [/\/apps\/web\/e2e\//, /\/test\/crash\//, /\/deploy-files\.test\.ts$/, /\/fuzz(-trpc)?\.test\.ts$/, /\/auth-timing\.test\.ts$/];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (f: TestSpecification) => SLOW.some((re) => re.test(f.moduleId));
    return [...sorted.filter(slow), ...sorted.filter((f) => !slow(f))];
  }
}
