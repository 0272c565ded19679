/// How a component enters the screen above it: pushed on a stack, presented modally, or selected as a tab.
public enum Segue: String, Sendable, Hashable, CaseIterable, Codable {
    case push, modal, tab

    /// The character that introduces a component of this segue in a URL or a path.
    public var character: Character {
        switch self {
        case .push: "/"
        case .modal: "!"
        case .tab: "#"
        }
    }

    public init?(scalar: Unicode.Scalar) {
        switch scalar {
        case "/": self = .push
        case "!": self = .modal
        case "#": self = .tab
        default: return nil
        }
    }
}

/// One level of a route: a screen key, Navigator's `::data`, DeepTransition's segue and `(params)`.
public struct RouteComponent: Sendable, Hashable, Codable {
    public var key: String
    public var data: String?
    public var segue: Segue
    public var params: [String: String]

    public init(key: String, data: String? = nil, segue: Segue = .push, params: [String: String] = [:]) {
        self.key = key
        self.data = data
        self.segue = segue
        self.params = params
    }

    /// One component written alone, as in a URL: `show::2`, `!player(autoplay=1)`.
    public init(parsing text: String) throws(RouteError) {
        self = try RouteScanner.component(text)
    }

    /// Whether `key` can name a route: non-empty, no spaces, none of `/ ! # ? ( ) : , =`.
    public static func isValidKey(_ key: String) -> Bool {
        guard let component = try? RouteScanner.component(key) else { return false }
        return component.key == key && component.data == nil && component.params.isEmpty
    }

    /// The component as it appears in a canonical URL, with its segue character unless `isRoot` and pushed.
    public func serialized(isRoot: Bool) -> String {
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
    public func isSameScreen(as other: RouteComponent) -> Bool {
        key == other.key && (data ?? "") == (other.data ?? "") && segue == other.segue && params == other.params
    }
}
