// The crash suites share one test file so that they run one after another on one worker while the
// rest of the tests use the others (a project without file parallelism would wait until every
// other file had finished). They start real processes, kill them with -9 and read /proc, so they
// must not overlap each other.
import './metering-crash.suite';
import './launcher.suite';
import './demo.suite';
