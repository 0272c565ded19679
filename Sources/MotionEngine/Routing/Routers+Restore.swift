import MotionRoutes
import MotionWire

extension Routers {
    /// Re-creates the routers saved in the state directory (at start, before the socket listens).
    package func restore(from store: any RouterStorage) -> (restored: [String], problems: [String]) {
        self.store = store
        let (saved, problems) = store.loadAll()
        var restored: [String] = [], failures = problems
        for entry in saved {
            // A stored router is never dropped for what may be fixed: plans of a type no loaded plugin
            // provides, or a URL the grammar no longer reads. It keeps its configuration and says so.
            var notes: [String] = []
            let configuration: RouterConfiguration
            do throws(EngineError) {
                configuration = try RouterConfiguration(entry.configuration, planCheck: planCheck(for: entry.owner), vocabulary: engine.vocabulary)
            } catch {
                do throws(EngineError) {
                    configuration = try RouterConfiguration(entry.configuration, planTypes: nil, vocabulary: engine.vocabulary)
                    notes.append("\(error.message) (kept; those plans fail until a loaded plugin accepts them)")
                } catch {
                    failures.append("\(entry.scheme): \(error.message)")
                    continue
                }
            }
            var state = RouteState()
            do throws(RouteError) {
                state = try RouteURL(parsing: entry.url).state
            } catch {
                notes.append("the stored URL \(entry.url) no longer parses (\(error.message)); the router starts at its root")
            }
            let router = Router(scheme: entry.scheme, owner: entry.owner, configuration: configuration, state: state)
            router.problems = notes
            all[router.key] = router
            try? engine.createRuntime(router.runtime)
            restored.append(entry.scheme)
            failures += notes.map { "\(entry.scheme): \($0)" }
        }
        return (restored, failures)
    }
}
