/// Reinstate's `StateTransitionAnimation`: how a container replaces the screen it shows with another.
///
/// `phases` is Reinstate's `replaceChild` sequence as data: each phase's steps run together, and a phase
/// starts when the one before it has finished.
package enum ContainerAnimation: String, Sendable, CaseIterable {
    /// Add the new screen animated, then remove the old one without animation (Reinstate's default).
    case appearOverPrevious
    /// Add the new screen without animation beneath the old one, then remove the old one animated.
    case appearUnderPrevious
    /// Add the new and remove the old at once; done when both are.
    case appearAndSimultaneouslyRemove
    /// Remove the old screen animated, then add the new one animated.
    case removePreviousThenAppear
    /// No animation: remove the old screen, add the new one.
    case none

    package enum Screen: String, Sendable { case incoming, outgoing }

    package struct Step: Sendable, Equatable, CustomStringConvertible {
        package enum Action: Sendable, Equatable {
            case appear, remove
            /// Stacking order: the screen drawn above the other gets the larger value.
            case order(Int)
        }

        package var screen: Screen
        package var action: Action
        package var animated: Bool

        package init(_ action: Action, _ screen: Screen, animated: Bool = false) {
            self.screen = screen
            self.action = action
            self.animated = animated
        }

        package var description: String { "\(action) \(screen)\(animated ? " animated" : "")" }
    }

    package var phases: [[Step]] {
        switch self {
        case .none:
            [[Step(.remove, .outgoing), Step(.appear, .incoming)]]
        case .appearOverPrevious:
            [[Step(.order(1), .incoming), Step(.order(0), .outgoing), Step(.appear, .incoming, animated: true)],
             [Step(.remove, .outgoing)]]
        case .appearUnderPrevious:
            [[Step(.order(0), .incoming), Step(.order(1), .outgoing), Step(.appear, .incoming)],
             [Step(.remove, .outgoing, animated: true)]]
        case .appearAndSimultaneouslyRemove:
            [[Step(.appear, .incoming, animated: true), Step(.remove, .outgoing, animated: true)]]
        case .removePreviousThenAppear:
            [[Step(.remove, .outgoing, animated: true)], [Step(.appear, .incoming, animated: true)]]
        }
    }
}
