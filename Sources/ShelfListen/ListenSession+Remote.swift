import Foundation

/// MPRIS in the session's loop: the bus is read without waiting each turn, on the session's own thread, so its
/// calls are machine events like keys.
extension ListenSession {
    /// Joins the session bus, if there is one.
    func startRemote() {
        remote = MprisService(state: machine.remoteState, book: machine.book, log: options.log) { [unowned self] in
            self.machine.timeline.bookTime(self.player.position)
        }
    }

    /// Hands the calls that came to the machine, then publishes its state; the outcome if one ended the session.
    func serveRemote() -> ListenOutcome? {
        guard let remote else { return nil }
        for command in remote.takeCommands() {
            if let outcome = send(.remote(command, snapshot())) { return outcome }
        }
        remote.publish(machine.remoteState, book: machine.book)
        return nil
    }
}
