import CCrashGuard
import ShelfCore

/// What every shelf program does first, before anything else runs.
public enum ProcessSetUp {
    /// Large buffers from their own mappings (`MemoryTuning`), and a crash signal another process sends (kill -SEGV,
    /// kill -ABRT…) ends the program with that signal: the Swift runtime's crash reporter prints a backtrace and
    /// returns, and a sync killed so carried on and exited 0. A fault of shelf's own still gets its backtrace.
    public static func apply() {
        MemoryTuning.apply()
        CCrashGuard_install()
    }
}
