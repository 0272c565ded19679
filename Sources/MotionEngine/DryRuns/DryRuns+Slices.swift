import MotionWire

/// Runs `SlicedWork` between ticks (docs/protocol.md: bounded work per tick).
extension DryRuns {
    /// Performs `work` for `session`, answering request `id` when it is done.
    func perform(_ work: any SlicedWork, for session: Session, replyingTo id: JSONValue) {
        session.job = work
        session.owedReplies += 1
        continueWork(of: session.id, replyingTo: id)
    }

    func continueWork(of sessionID: UInt64, replyingTo id: JSONValue) {
        while let session = sessions[sessionID], let work = session.job {
            isSampling = !work.isLive
            let outcome = Result { () throws(EngineError) in
                try work.work(in: context, until: WorkClock.now() + EngineContext.sliceNanos)
            }
            isSampling = false
            engine.dropDryRunWrites()
            switch outcome {
            case .success(false):
                // Without an engine loop (tests, tools) the next slice runs at once.
                guard let onEngineThreadFor = hooks.onEngineThreadFor else { continue }
                onEngineThreadFor(session.peer?.uid, false) { $0.dryRuns.continueWork(of: sessionID, replyingTo: id) }
                return
            case .success(true):
                let answer = Result { () throws(EngineError) in try work.finish(in: context) }
                endWork(of: session)
                let line = switch answer {
                case .success(let result): result.line(id: id)
                case .failure(let error): WireMessage.line(WireMessage.error(id: id, code: error.code, message: error.message))
                }
                session.sendOwedReply(line: line)
            case .failure(let error):
                endWork(of: session)
                session.sendOwedReply(WireMessage.error(id: id, code: error.code, message: error.message))
            }
            // The requests that waited behind it, in order, until one starts work of its own.
            while session.job == nil, session.journalPending == 0, !session.isClosed, let next = session.nextWaiting() {
                context.handle(next, from: sessionID, draining: true)
            }
            session.closeIfFinished()
            return
        }
    }

    /// Ends the session's work (finished, failed, or its connection closed).
    func endWork(of session: Session) {
        guard let work = session.job else { return }
        session.job = nil
        isSampling = !work.isLive
        work.end(in: context)
        isSampling = false
        engine.dropDryRunWrites()
    }
}
