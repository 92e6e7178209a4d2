import type { Reporter, TestModule } from 'vitest/node';

/**
 * After the run, the time each database's tests took: the PGlite projects and the `:pg` ones run
 * side by side in one vitest run, so their test time (summed over files) stands for each pass.
 */
const SLOWEST = 20;

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
    // The slowest files, where a slow run's time went.
    const slowest = [...modules].sort((a, b) => b.diagnostic().duration - a.diagnostic().duration).slice(0, SLOWEST);
    if (modules.length > SLOWEST)
      for (const m of slowest)
        process.stdout.write(
          `  ${String(Math.round(m.diagnostic().duration / 1000)).padStart(4)} s  ${m.project.name}  ${m.moduleId.replace(`${m.project.config.root}/`, '')}\n`,
        );
  }
}
