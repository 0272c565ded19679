/// How a component enters the screen above it: pushed on a stack, presented modally, or selected as a tab.
package enum Segue: String, Sendable, Hashable, CaseIterable, Codable {
    case push, modal, tab

    /// The character that introduces a component of this segue in a URL or a path.
    package var character: Character {
        switch self {
        case .push: "/"
        case .modal: "!"
        case .tab: "#"
        }
    }

    package init?(scalar: Unicode.Scalar) {
        switch scalar {
        case "/": self = .push
        case "!": self = .modal
        case "#": self = .tab
        default: return nil
        }
    }
}

/// One level of a route: a screen key, Navigator's `::data`, DeepTransition's segue and `(params)`.
package struct RouteComponent: Sendable, Hashable, Codable {
    package var key: String
    package var data: String?
    package var segue: Segue
    package var params: [String: String]

    package init(key: String, data: String? = nil, segue: Segue = .push, params: [String: String] = [:]) {
        self.key = key
        self.data = data
        self.segue = segue
        self.params = params
    }

    /// One component written alone, as in a URL: `show::2`, `!player(autoplay=1)`.
    package init(parsing text: String) throws(RouteError) {
        self = try RouteScanner.component(text)
    }

    /// Whether `key` can name a route: non-empty, no spaces, none of `/ ! # ? ( ) : , =`.
    package static func isValidKey(_ key: String) -> Bool {
        guard let component = try? RouteScanner.component(key) else { return false }
        return component.key == key && component.data == nil && component.params.isEmpty
    }

    /// The component as it appears in a canonical URL, with its segue character unless `isRoot` and pushed.
    package func serialized(isRoot: Bool) -> String {
        var text = isRoot && segue == .push ? "" : String(segue.character)
        text += key
        if let data { text += "::" + data }
        if !params.isEmpty {
            text += "(" + params.keys.sorted().map { "\($0)=\(params[$0]!)" }.joined(separator: ",") + ")"
        }
        return text
    }

    /// Whether a diff may keep this component in place of `other`. As in Navigator, no data and empty
    /// data are the same; segue and params must match too.
    package func isSameScreen(as other: RouteComponent) -> Bool {
        key == other.key && (data ?? "") == (other.data ?? "") && segue == other.segue && params == other.params
    }
}
