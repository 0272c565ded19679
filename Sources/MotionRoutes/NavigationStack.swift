/// Reinstate's `StatefulNavigationController` bookkeeping, without UIKit: which of a stack's entries a
/// transition to a new state keeps, and what it does to get there.
///
/// `states` mirrors the stack. `children` (optional) are the screens' identities, for Reinstate's rule
/// that a child instance already in the stack is popped to even when popping is disabled.
package struct NavigationStack<State, Child: Equatable> {
    package enum Action: Equatable {
        case configureInitialState
        case popToExistingChild(index: Int)
        case popToIndex(Int)
        /// Replace the child at `index` with the new one, then pop to it. As in Reinstate, the state
        /// recorded at `index` keeps its old value.
        case replaceAtIndexThenPop(Int)
        case push
    }

    package private(set) var states: [State]
    package private(set) var children: [Child]
    package private(set) var state: State?

    package init(states: [State] = [], children: [Child]) {
        self.states = states
        self.children = children
        self.state = states.last
    }

    /// - Parameters:
    ///   - newChild: the child Reinstate's `childViewController(for:)` returns for `new`.
    ///   - shouldPop: Reinstate's `shouldPopToViewController(from: stacked, to: new)`; pops go to the
    ///     *last* (top-most) match.
    ///   - equal: decides between popping to an existing child and replacing it.
    package mutating func transition(to new: State, newChild: Child, canPopToExistingState: Bool = true,
                                    shouldPop: (State, State) -> Bool,
                                    equal: (State, State) -> Bool) -> Action {
        state = new
        if states.isEmpty {
            states = [new]
            children = [newChild]
            return .configureInitialState
        }
        if let index = children.firstIndex(of: newChild) {
            truncate(after: index)
            return .popToExistingChild(index: index)
        }
        if canPopToExistingState, let index = states.lastIndex(where: { shouldPop($0, new) }) {
            if equal(states[index], new) {
                truncate(after: index)
                return .popToIndex(index)
            }
            children[index] = newChild
            truncate(after: index)
            return .replaceAtIndexThenPop(index)
        }
        states.append(new)
        children.append(newChild)
        return .push
    }

    private mutating func truncate(after index: Int) {
        states.removeSubrange((index + 1)...)
        children.removeSubrange((index + 1)...)
    }
}

extension NavigationStack where Child == Int {
    /// A stack of states whose children carry no identity of their own (the router's case).
    package init(states: [State]) {
        self.init(states: states, children: [])
        children = Array(repeating: -1, count: states.count)
    }

    /// Pops to the nearest state `equal` to `new`, else pushes it.
    package mutating func transition(to new: State, equal: (State, State) -> Bool) -> Action {
        transition(to: new, newChild: -2 - states.count, shouldPop: equal, equal: equal)
    }
}
