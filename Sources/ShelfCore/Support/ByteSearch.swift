/// Searching text for an ASCII word by its bytes. With Foundation imported, `String.contains(_:)` of a string goes
/// through NSString's `range(of:)`, which copies the text to UTF-16 first: for the protection and medium checks run
/// on every acquisition type of every entry, that was a twentieth of a large sync's CPU.
extension StringProtocol {
    /// Whether the text holds `needle`, byte for byte.
    func containsBytes(_ needle: StaticString) -> Bool { search(needle, foldingCase: false) }

    /// Whether the text holds `needle` (lower-case ASCII), ASCII letters compared without regard to case: the same as
    /// `lowercased().contains(needle)` but for the few non-ASCII letters that lower-case to ASCII (the Kelvin sign).
    func containsIgnoringASCIICase(_ needle: StaticString) -> Bool { search(needle, foldingCase: true) }

    private func search(_ needle: StaticString, foldingCase: Bool) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return true }
        if let found = utf8.withContiguousStorageIfAvailable({ Self.find(pattern, first, in: $0, foldingCase) }) {
            return found
        }
        return Array(utf8).withUnsafeBufferPointer { Self.find(pattern, first, in: $0, foldingCase) }
    }

    private static func find(
        _ pattern: UnsafeBufferPointer<UInt8>, _ first: UInt8, in text: UnsafeBufferPointer<UInt8>, _ foldingCase: Bool
    ) -> Bool {
        @inline(__always) func fold(_ byte: UInt8) -> UInt8 {
            foldingCase && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        }
        guard text.count >= pattern.count else { return false }
        var start = 0
        let last = text.count - pattern.count
        while start <= last {
            if fold(text[start]) == first {
                var matched = 1
                while matched < pattern.count && fold(text[start + matched]) == pattern[matched] { matched += 1 }
                if matched == pattern.count { return true }
            }
            start += 1
        }
        return false
    }
}
