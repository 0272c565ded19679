/// Reads the part of a route after `scheme://` (or a DeepTransition path): components, each as an
/// optional segue character, a key, optional `::data` and optional `(k=v,…)`, then an optional
/// `?key=options&…` overlay query.
///
/// Both seed syntaxes go through here. A `/` right after `!` or `#` is DeepTransition's "own navigation
/// container" mark and is dropped; repeated or trailing `/` are skipped as Navigator skips empty pieces.
/// Inside parentheses every character but `,` and `)` is literal, so a parameter value may hold a URL.
///
/// It reads Unicode scalars, not Characters: a combining mark after `/` would otherwise fuse with it
/// into one grapheme and hide the separator (found by fuzzing).
struct RouteScanner {
    static let maximumComponents = 256
    /// Characters that end a key.
    private static let keyTerminators: Set<Unicode.Scalar> = ["/", "!", "#", "?", "(", ")", ":", ",", "="]

    private let characters: [Unicode.Scalar]
    private var index = 0

    init(_ text: Substring) {
        characters = Array(text.unicodeScalars)
    }

    private func text(_ range: Range<Int>) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: characters[range])
        return String(scalars)
    }

    /// Components and, when the text has one, the overlay query (without its `?`).
    static func scan(_ text: Substring) throws(RouteError) -> (components: [RouteComponent], query: [String: OverlayOptions]?) {
        var scanner = RouteScanner(text)
        return try scanner.scanAll()
    }

    /// One component written alone (`show::2`, `!player(autoplay=1)`), as Navigator's `push(key)` takes it.
    static func component(_ text: String) throws(RouteError) -> RouteComponent {
        let (components, query) = try scan(Substring(text))
        guard components.count == 1, query == nil else {
            throw RouteError(.malformed, "\"\(text)\": expected exactly one component")
        }
        return components[0]
    }

    private mutating func scanAll() throws(RouteError) -> ([RouteComponent], [String: OverlayOptions]?) {
        var components: [RouteComponent] = []
        var pending: Segue?
        while index < characters.count {
            let character = characters[index]
            if character == "?" {
                try checkDangling(pending)
                index += 1
                return (components, try Self.overlays(text(index..<characters.count)))
            }
            if let segue = Segue(scalar: character) {
                switch (segue, pending) {
                case (.push, .modal?), (.push, .tab?): break  // `!/x`, `#/x`: container mark
                case (.push, _): pending = .push              // `//` and a trailing `/` are empty pieces
                case (_, .modal?), (_, .tab?):
                    throw malformed("'\(character)' follows '\(pending!.character)' with no key between them")
                default: pending = segue
                }
                index += 1
                continue
            }
            guard components.count < Self.maximumComponents else {
                throw RouteError(.malformed, "more than \(Self.maximumComponents) components")
            }
            components.append(try scanComponent(segue: pending ?? .push))
            pending = nil
            if index < characters.count, Segue(scalar: characters[index]) == nil, characters[index] != "?" {
                throw malformed("unexpected '\(characters[index])'")
            }
        }
        try checkDangling(pending)
        return (components, nil)
    }

    private func checkDangling(_ pending: Segue?) throws(RouteError) {
        if let pending, pending != .push {
            throw malformed("'\(pending.character)' must be followed by a key")
        }
    }

    private mutating func scanComponent(segue: Segue) throws(RouteError) -> RouteComponent {
        let start = index
        while index < characters.count, !Self.keyTerminators.contains(characters[index]) {
            guard !characters[index].properties.isWhitespace, characters[index].value >= 0x20, characters[index].value != 0x7F else {
                throw malformed("a key may not contain spaces or control characters")
            }
            index += 1
        }
        guard index > start else { throw malformed("expected a key") }
        var component = RouteComponent(key: text(start..<index), segue: segue)
        if index < characters.count, characters[index] == ":" {
            guard index + 1 < characters.count, characters[index + 1] == ":" else {
                throw malformed("a single ':' (data is written key::data)")
            }
            index += 2
            let dataStart = index
            while index < characters.count, !"/!#?(".unicodeScalars.contains(characters[index]) { index += 1 }
            let data = text(dataStart..<index)
            guard !data.contains("::") else {
                throw RouteError(.malformed, "component \"\(component.key)\": only one data string is allowed")
            }
            component.data = data
        }
        if index < characters.count, characters[index] == "(" {
            component.params = try scanParams(of: component.key)
        }
        return component
    }

    private mutating func scanParams(of key: String) throws(RouteError) -> [String: String] {
        let open = index
        index += 1
        var params: [String: String] = [:]
        while true {
            guard index < characters.count else {
                throw RouteError(.malformed, "component \"\(key)\": '(' at position \(open) is never closed")
            }
            if characters[index] == ")", params.isEmpty, characters[index - 1] == "(" { break }
            let nameStart = index
            while index < characters.count, !"=,)".unicodeScalars.contains(characters[index]) { index += 1 }
            guard index < characters.count, characters[index] == "=" else {
                throw RouteError(.malformed, "component \"\(key)\": parameter \"\(text(nameStart..<min(index, characters.count)))\" needs key=value")
            }
            let name = text(nameStart..<index)
            guard !name.isEmpty else { throw malformed("a parameter of \"\(key)\" has an empty name") }
            index += 1
            let valueStart = index
            while index < characters.count, !",)".unicodeScalars.contains(characters[index]) { index += 1 }
            params[name] = text(valueStart..<index)
            guard index < characters.count else { continue }  // reports the unclosed '('
            if characters[index] == ")" { break }
            index += 1
        }
        index += 1
        return params
    }

    /// `key=options&…`; a later duplicate key wins (Navigator leaves the winner unspecified).
    static func overlays(_ query: String) throws(RouteError) -> [String: OverlayOptions] {
        var overlays: [String: OverlayOptions] = [:]
        if query.isEmpty { return overlays }
        for pair in query.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", omittingEmptySubsequences: false)
            let shown = String(String.UnicodeScalarView(pair))
            guard parts.count == 2 else {
                throw RouteError(.malformed, "overlay \"\(shown)\": expected key=options")
            }
            guard !parts[0].isEmpty,
                !parts[0].contains(where: { "/!#?()".unicodeScalars.contains($0) || $0.properties.isWhitespace || $0.value < 0x20 })
            else {
                throw RouteError(.malformed, "overlay \"\(shown)\": the key must be non-empty, without / ! # ? ( ) or spaces")
            }
            overlays[String(String.UnicodeScalarView(parts[0]))] = try OverlayOptions(parsing: Substring(String(String.UnicodeScalarView(parts[1]))))
        }
        return overlays
    }

    private func malformed(_ problem: String) -> RouteError {
        RouteError(.malformed, "\(problem) at position \(index)")
    }
}
