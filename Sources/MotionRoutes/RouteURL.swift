/// An absolute route: `scheme://` followed by components and overlays, in either seed's syntax.
///
/// `television://home/show::2?video=v` (Navigator) and `television://top!/friend#list` (DeepTransition's
/// absolute path with a scheme) both parse; `string` is the canonical form, and
/// `RouteURL(parsing: url.string)` gives back an equal URL.
package struct RouteURL: Sendable, Hashable, CustomStringConvertible {
    package var scheme: String
    package var state: RouteState

    package init(scheme: String, state: RouteState = RouteState()) {
        self.scheme = scheme
        self.state = state
    }

    package init(parsing text: String) throws(RouteError) {
        guard let separator = Self.schemeSeparator(in: text) else {
            throw RouteError(.malformed, "\"\(Self.excerpt(text))\": no scheme found (expected scheme://…)")
        }
        let scheme = String(text.unicodeScalars[..<separator.lowerBound])
        guard Self.isValidScheme(scheme) else {
            throw RouteError(.malformed, "\"\(Self.excerpt(text))\": the scheme must be a letter followed by letters, digits, '+', '-' or '.'")
        }
        let (components, query) = try RouteScanner.scan(Substring(text.unicodeScalars[separator.upperBound...]))
        self.init(scheme: scheme, state: RouteState(components: components, overlays: query ?? [:]))
    }

    /// Whether `text` starts like an absolute URL (`scheme://`), as opposed to a DeepTransition path.
    package static func looksAbsolute(_ text: String) -> Bool {
        guard let separator = schemeSeparator(in: text) else { return false }
        return isValidScheme(String(text.unicodeScalars[..<separator.lowerBound]))
    }

    package static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter, scheme.utf8.count <= 64 else { return false }
        return scheme.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// The range of the first `://`, found scalar by scalar (a combining mark after it must not hide it).
    static func schemeSeparator(in text: String) -> Range<String.Index>? {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            if scalars[index...].starts(with: "://".unicodeScalars) {
                return index..<scalars.index(index, offsetBy: 3)
            }
            index = scalars.index(after: index)
        }
        return nil
    }

    package var string: String { state.url(scheme: scheme) }
    package var description: String { string }

    static func excerpt(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
