/// "Did you mean …?": the known key closest to a misspelled one, by edit distance (insertions, deletions,
/// substitutions and swaps of neighbours), when it is close enough to be a plausible typo.
public enum KeySuggestion {
    public static func closest(to key: String, in candidates: some Sequence<String>) -> String? {
        let typed = Array(key.lowercased().utf8)
        var best: (key: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = editDistance(typed, Array(candidate.lowercased().utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        // One edit in three characters at most (at least one, at most three): "dampng" → "damping".
        let limit = min(3, max(1, max(typed.count, best.key.utf8.count) / 3))
        return best.distance <= limit ? best.key : nil
    }

    /// Optimal string alignment distance.
    public static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
