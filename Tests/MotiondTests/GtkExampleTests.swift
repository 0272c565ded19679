import Foundation
import MotionTestSupport
import MotionWire
import Testing

/// examples/gtk/cards.py, a GTK 4 program, under Xvfb against a real daemon (docs/clients.md#a-toolkit-gtk-4-examplesgtk): its cards are,
/// in the X server's screenshots, where their frames put them and where `plan.sample` says at each frame's
/// present time; a flick replayed by xdotool tosses a card to a snap point. The run is
/// Fixtures/gtk_cards.py (Xvfb, xdotool, xwd); scripts/setup installs what it needs, and a machine
/// without it fails here rather than passing untested.
@Suite("GTK example")
struct GtkExampleTests {
    static let tools = ["/usr/bin/python3", "/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/xwd"]

    @Test func cardsSlideByTheDaemonsSpringsAndAFlickTossesOne() async throws {
        let missing = Self.tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        #expect(missing.isEmpty, "scripts/setup installs \(missing.joined(separator: ", "))")
        guard missing.isEmpty else { return }
        let daemon = try await DaemonProcess()
        let work = try CCompiler.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let script = CCompiler.repository.appendingPathComponent("Tests/MotiondTests/Fixtures/gtk_cards.py").path
        // MOTIOND_UPDATE_IMAGES=1 writes the shots docs/clients.md shows.
        let images = ProcessInfo.processInfo.environment["MOTIOND_UPDATE_IMAGES"] == "1"
            ? [CCompiler.repository.appendingPathComponent("docs/images").path] : []
        let run = try await TestProcess.run("/usr/bin/python3", [script, daemon.socket, work] + images, timeout: 180)
        #expect(run.status == 0, "\(run.output)")
        guard let line = run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let findings = try? JSONValue.parse(Array(line.utf8)) else {
            Issue.record("gtk_cards.py printed no findings: \(run.output)")
            return
        }
        let numbers = { (key: String) in findings[key]?.arrayValue?.compactMap(\.doubleValue) ?? [] }
        #expect(findings["status"] == 0, "cards.py exited with \(String(describing: findings["status"]))")
        #expect(findings["said"]?.arrayValue?.contains("card-1 rests at 480.00") == true, "\(line)")
        // A flick is tried again only when its samples reached the daemon with a gap that leaves no release
        // velocity (the replay held up: Fixtures/gtk_cards.py, FLICKS); one that came as recorded is tossed.
        let flicks = findings["flicks"]?.arrayValue ?? []
        #expect(!flicks.isEmpty && flicks.dropLast().allSatisfy { $0["gaps"]?.arrayValue?.isEmpty == false }, "flicks: \(flicks)")
        // Under load GTK skips frames: fewer screenshots, each still checked.
        // Frames were shown at the frame clock's frame time they were meant for (within half a frame; a
        // frame late under a loaded test run shows the one before, so most, not all).
        let offsets = numbers("frameTimeOffsets")
        #expect(offsets.count >= 20, "\(offsets.count) screenshots")
        #expect(offsets.filter { abs($0) < 1.0 / 120 }.count * 5 >= offsets.count * 4, "present − frame time: \(offsets)")
        // In every screenshot each card's edge is where its frame put it…
        let shown = findings["shown"]?.arrayValue ?? []
        #expect(shown.count >= 30 && shown.allSatisfy { $0.doubleValue.map { abs($0) < 0.5 } ?? false }, "edge − value: \(shown)")
        // …and where plan.sample puts the slide at the frame's present time (one start fitted per card).
        let sampled = numbers("sampled")
        #expect(sampled.count >= 20, "\(sampled.count) shots of sliding cards")
        #expect(sampled.allSatisfy { abs($0) < 0.5 }, "edge − plan.sample: \(sampled)")
        // The flick: card-1 seen in flight, then at the far snap point.
        let tossed = numbers("tossed")
        #expect(Set(tossed.map { Int($0) }).filter { $0 > 45 && $0 < 475 }.count >= 4, "card-1 in flight: \(tossed)")
        #expect(tossed.last.map { abs($0 - 480) < 0.5 } == true, "card-1 rests at \(String(describing: tossed.last))")
    }
}
