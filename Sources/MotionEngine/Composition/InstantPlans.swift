/// When plans complete at once (docs/vocabulary.md): never, under reduce motion (every plan not marked
/// `"essential": true`), or at speed 0 (every plan). How each plan type completes at once is the
/// `PlanVocabulary`'s.
package enum InstantMotion: String, Sendable, Equatable {
    case off
    case reduceMotion
    case all
}
