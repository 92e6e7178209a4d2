import type { Reporter, TestModule } from 'vitest/node';

/**
 * After the run, the time each database's tests took: the PGlite projects and the `:pg` ones run
 * side by side in one vitest run, so their test time (summed over files) stands for each pass.
 */
export default class PassTimes implements Reporter {
  private started = Date.now();

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const passes = new Map<string, { files: number; ms: number }>();
    for (const m of modules) {
      const pass = m.project.name.endsWith(':pg') ? 'PostgreSQL' : 'PGlite';
      const p = passes.get(pass) ?? { files: 0, ms: 0 };
      p.files += 1;
      p.ms += m.diagnostic().duration;
      passes.set(pass, p);
    }
    const parts = [...passes].map(([pass, p]) => `${pass} ${Math.round(p.ms / 1000)} s in ${p.files} files`);
    process.stdout.write(`\npass times (test time summed over files): ${parts.join('; ')}; wall time ${Math.round((Date.now() - this.started) / 1000)} s\n`);
  }
}
