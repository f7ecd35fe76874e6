import Foundation
import ShelfCore

extension ListenOptions {
    /// What ←/→ skip when `--skip` was never given.
    static let defaultSkip: Double = 30
    /// Where the last `--skip` is kept (the positions database's `setting` table).
    static let skipSetting = "listen.skip"

    /// Where `--skip-silence` and `--normalize` are kept.
    static let skipSilenceSetting = "listen.skip-silence"
    static let normalizeSetting = "listen.normalize"

    /// A switch the patron may turn on or off for good (`--skip-silence`, `--no-skip-silence`): what was asked now
    /// (kept, unless the home is read-only), else what was kept, else off.
    static func switched(_ key: String, asked: Bool?, store: Store) -> Bool {
        if let asked {
            try? store.setSetting(key, to: asked ? "on" : "off")
            return asked
        }
        return (try? store.setting(key)) == "on"
    }

    /// What ←/→ skip: `asked` (kept for the next session), else the last one asked, else 30 s.
    static func skip(asked: Double?, store: Store) throws -> Double {
        if let asked {
            try store.setSetting(skipSetting, to: String(asked))
            return asked
        }
        guard let kept = try store.setting(skipSetting).flatMap(Double.init), kept.isFinite, kept > 0 else { return defaultSkip }
        return kept
    }
}
