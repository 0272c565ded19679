/// How the engine keys what a uid owns (docs/operations.md#a-plugin-that-crashes-the-daemon): runtime `default` of uid 1000 is `1000/default`, its
/// router of `tv://` is `1000/tv`. Clients name their own runtimes plainly; another uid's, where they may
/// see it (a shared runtime, or anything for an admin), as `<uid>/<name>`. A key without that prefix is
/// the daemon's own (its scratch runtimes, which nobody sees).
package enum OwnedName {
    package static func key(_ owner: UInt32, _ name: some StringProtocol) -> String { "\(owner)/\(name)" }

    /// The owner and the plain name of a key; a daemon key has no owner.
    package static func split(_ key: String) -> (owner: UInt32?, name: Substring) {
        guard let (owner, rest) = ownerPrefix(of: key) else { return (nil, key[...]) }
        return (owner, rest)
    }

    /// `<uid>/<rest>` (at most ten digits, a value that fits a uid): the uid and the rest.
    static func ownerPrefix(of text: String) -> (UInt32, Substring)? {
        var owner: UInt64 = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "/") {
                guard digits > 0, owner <= UInt64(UInt32.max) else { return nil }
                let rest = text.utf8.index(text.utf8.startIndex, offsetBy: digits + 1)
                return (UInt32(owner), text[rest...])
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 10 else { return nil }
            owner = owner * 10 + UInt64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return nil
    }

    /// The key's name as `viewer` writes it: plain for its owner (and for daemon keys), else `<uid>/<name>`.
    package static func display(_ key: String, for viewer: UInt32) -> String {
        let (owner, name) = split(key)
        return owner == nil || owner == viewer ? String(name) : key
    }
}
