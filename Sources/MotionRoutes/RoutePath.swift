/// DeepTransition's relative paths, resolved against a router's current state (`relativeTo`).
///
/// - `user`, `/user`: push `user`; `!user`: present it; `#tab`: select a tab.
/// - `..` goes up one level and takes the next character as the segue of what follows: `../x` pushes,
///   `..!x` presents, `..!..!x` goes up two and presents. Going up past the root stops at the root.
/// - `^/top!friend`: absolute, from the root. `up(n=2)`: the state two levels up.
/// - A trailing `?key=options&…` sets overlays; components are untouched by an empty path.
/// - A full URL (`scheme://…`) replaces the state with itself.
package enum RoutePath {
    package static func resolve(_ path: String, from current: RouteState) throws(RouteError) -> RouteState {
        if RouteURL.looksAbsolute(path) { return try RouteURL(parsing: path).state }
        if let levels = try upCount(path) {
            guard levels <= current.components.count else {
                throw RouteError(.outOfRange, "\(path): the route is only \(current.components.count) levels deep")
            }
            return RouteState(components: Array(current.components.dropLast(levels)), overlays: current.overlays)
        }
        var kept = current.components
        // Scalar by scalar, as the scanner reads: a combining mark must not fuse with a '.' or a segue.
        var rest = Substring(path).unicodeScalars[...]
        if rest.first == "^" {
            kept = []
            rest = rest.dropFirst()
        } else {
            var ups = 0
            var pending: Unicode.Scalar?
            while rest.starts(with: "..".unicodeScalars) {
                ups += 1
                rest = rest.dropFirst(2)
                if let next = rest.first, next != "?" {
                    guard Segue(scalar: next) != nil else {
                        throw RouteError(.malformed, "\(path): '..' must be followed by '/', '!' or '#', not '\(next)'")
                    }
                    pending = next
                    rest = rest.dropFirst()
                }
            }
            kept = Array(kept.prefix(max(0, kept.count - ups)))
            if !rest.isEmpty, let pending {
                var prefixed = String.UnicodeScalarView([pending])
                prefixed.append(contentsOf: rest)
                rest = Substring(String(prefixed)).unicodeScalars[...]
            }
        }
        let (added, query) = try RouteScanner.scan(Substring(rest))
        var overlays = current.overlays
        for (key, options) in query ?? [:] { overlays[key] = options }
        let components = kept + added
        guard components.count <= RouteScanner.maximumComponents else {
            throw RouteError(.malformed, "more than \(RouteScanner.maximumComponents) components")
        }
        return RouteState(components: components, overlays: overlays)
    }

    /// `up(n=K)` (or `up()`, one level): K, else nil for any other path.
    static func upCount(_ path: String) throws(RouteError) -> Int? {
        guard path.hasPrefix("up("), path.hasSuffix(")") else { return nil }
        let inner = path.dropFirst(3).dropLast()
        if inner.isEmpty { return 1 }
        guard inner.hasPrefix("n="), let levels = Int(inner.dropFirst(2)), levels >= 0 else {
            throw RouteError(.malformed, "\(path): expected up(n=<levels>)")
        }
        return levels
    }
}
