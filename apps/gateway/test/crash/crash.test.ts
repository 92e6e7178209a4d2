// The crash suites share one test file so that they run one after another on one worker while the
// rest of the tests use the others (a project without file parallelism would wait until every
// other file had finished). They start real processes, kill them with -9 and read /proc, so they
// must not overlap each other.
// The launcher and the demo always run on their embedded database (they take no DATABASE_URL): on
// the PostgreSQL run (DATABASE_URL set) only the metering suite has something new to show.
import './metering-crash.suite';
if (!process.env.DATABASE_URL) {
  await import('./launcher.suite');
  await import('./demo.suite');
}
