import CMalloc

/// Process-wide allocator settings, applied once at start-up.
public enum MemoryTuning {
    /// Serves allocations of 1 MB and more (feed pages, response buffers) from their own mappings, which go back
    /// to the system when freed. glibc's default threshold grows after the first large free, after which such
    /// buffers come from the heap and keep the process's memory high for the rest of a long sync.
    public static func apply() {
        _ = CMalloc_setMmapThreshold(1 << 20)
    }
}
