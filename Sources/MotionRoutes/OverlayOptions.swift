/// An overlay's options (Navigator's parameter bitmask): visible 1, unanimated 2, async 4, modal 8.
package struct OverlayOptions: OptionSet, Sendable, Hashable, Codable {
    package let rawValue: Int

    package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    package static let visible = OverlayOptions(rawValue: 1)
    package static let unanimated = OverlayOptions(rawValue: 2)
    package static let async = OverlayOptions(rawValue: 4)
    package static let modal = OverlayOptions(rawValue: 8)
    package static let hidden: OverlayOptions = []

    /// Letters in the canonical order `v u a m`.
    static let lettered: [(Character, OverlayOptions)] = [("v", .visible), ("u", .unanimated), ("a", .async), ("m", .modal)]

    package var isVisible: Bool { contains(.visible) }

    /// The letters a canonical URL writes for these options (`"vm"` for 9).
    package var letters: String {
        String(Self.lettered.filter { contains($0.1) }.map(\.0))
    }

    /// Reads a query value: letters from `vuam` in any order, or Navigator's integer bitmask 0–15. Unlike
    /// Navigator, `v` means visible.
    package init(parsing text: Substring) throws(RouteError) {
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let value = Int(text), (0...15).contains(value) else {
                throw RouteError(.malformed, "overlay options \"\(text)\": an integer bitmask must be 0 to 15")
            }
            self.init(rawValue: value)
            return
        }
        var options: OverlayOptions = []
        for letter in text {
            guard let option = Self.lettered.first(where: { $0.0 == letter })?.1 else {
                throw RouteError(.malformed,
                                 "overlay options \"\(text)\": expected letters v, u, a, m or an integer 0 to 15")
            }
            options.insert(option)
        }
        self = options
    }
}
