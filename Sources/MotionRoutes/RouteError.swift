/// Why a URL, a path or a mutation could not be used. `code` is the stable wire code.
package struct RouteError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The text does not follow the route grammar; the message names the problem and its position.
        case malformed = "route.malformed"
        /// The URL names another scheme than the router it was sent to.
        case schemeMismatch = "route.scheme_mismatch"
        /// `up(n)`, `pop(n)` or a mutation reaches past the root.
        case outOfRange = "route.out_of_range"
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
