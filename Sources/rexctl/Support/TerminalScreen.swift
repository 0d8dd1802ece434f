#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The interactive terminal of a full-screen command (`rexctl top`): keys read one at a time
/// without echo, frames drawn on the alternate screen with the cursor hidden — and the terminal
/// as it was again on ``leave()``, or when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives first, and
/// while the process is stopped by Ctrl-Z (SIGTSTP; SIGCONT brings the screen back).
///
/// ```swift
/// guard let screen = TerminalScreen.enter() else { … }   // nil: not a terminal
/// defer { screen.leave() }
/// screen.draw(frame)
/// if screen.key(until: deadline) == UInt8(ascii: "q") { … }
/// ```
///
/// Only one screen is entered at a time (the signal handlers restore the one saved state).
final class TerminalScreen {
    private let input: Int32
    private let output: Int32
    private var previousHandlers: [(Int32, sighandler_t?)] = []
    private var active = true

    /// The signals that restore the terminal, then act as they would have (the process ends
    /// with the signal's status).
    static let restoringSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Enters the screen when both `input` and `output` are terminals: canonical mode and echo
    /// off (signals still come from Ctrl-C), alternate screen, hidden cursor.
    static func enter(input: Int32 = 0, output: Int32 = 1) -> TerminalScreen? {
        guard isatty(input) == 1, isatty(output) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // The handlers read these: both are initialised before any of them is installed (a first
        // touch of a global from a handler could run its lazy initialiser, which is not signal-safe).
        _ = leaveSequence.utf8CodeUnitCount
        _ = enterSequence.utf8CodeUnitCount
        savedTerminal = SavedTerminal(input: input, output: output, attributes: saved, raw: raw, isSaved: true)
        let screen = TerminalScreen(input: input, output: output)
        for number in restoringSignals {
            screen.previousHandlers.append((number, signal(number, restoreTerminalAndReraise)))
        }
        screen.previousHandlers.append((SIGTSTP, signal(SIGTSTP, restoreTerminalAndStop)))
        guard tcsetattr(input, TCSANOW, &raw) == 0 else {
            screen.leave()
            return nil
        }
        screen.write(enterSequence)
        return screen
    }

    /// The terminal's size, when it tells.
    var size: (rows: Int, columns: Int)? {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else { return nil }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Draws `lines` from the top-left corner, each cut to the terminal's width and the list to
    /// its height, clearing what the previous frame left.
    func draw(_ lines: [String]) {
        let size = self.size
        var frame = "\u{1B}[H"
        for line in lines.prefix(size?.rows ?? lines.count) {
            frame += (size.map { String(line.prefix($0.columns)) } ?? line) + "\u{1B}[K\n"
        }
        frame += "\u{1B}[J"
        write(frame)
    }

    /// The next key pressed before `deadline` (its first byte), or nil when none was.
    func key(until deadline: ContinuousClock.Instant) -> UInt8? {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return nil }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            guard ready > 0 else { continue }
            // Input gone (the terminal hung up): no key will ever come; quit as if `q` was pressed.
            if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && descriptor.revents & Int16(POLLIN) == 0 {
                return UInt8(ascii: "q")
            }
            var byte: UInt8 = 0
            let count = read(input, &byte, 1)
            if count == 1 { return byte }
            if count == 0 { return UInt8(ascii: "q") }
            if errno != EINTR && errno != EAGAIN { return UInt8(ascii: "q") }
        }
    }

    /// Restores the terminal and the previous signal handlers. Safe to call twice.
    func leave() {
        guard active else { return }
        active = false
        write(leaveSequence)
        var attributes = savedTerminal.attributes
        _ = tcsetattr(input, TCSANOW, &attributes)
        for (number, handler) in previousHandlers { signal(number, handler) }
        previousHandlers = []
        savedTerminal.isSaved = false
    }

    private func write(_ text: StaticString) {
        _ = Glibc.write(output, text.utf8Start, text.utf8CodeUnitCount)
    }

    private func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// Alternate screen on, cursor hidden.
private let enterSequence: StaticString = "\u{1B}[?1049h\u{1B}[?25l"
/// Cursor shown, alternate screen off (back to what was there before).
private let leaveSequence: StaticString = "\u{1B}[?25h\u{1B}[?1049l"

/// The terminal as it was before ``TerminalScreen/enter(input:output:)``.
private struct SavedTerminal {
    var input: Int32 = 0
    var output: Int32 = 1
    var attributes = termios()
    /// The screen's own settings, put back after a stop.
    var raw = termios()
    var isSaved = false
}

// nonisolated(unsafe): written only by TerminalScreen.enter (before it installs the handlers that
// read it) and by leave (after the terminal is restored); read by the handlers, which only run
// while it is complete. rexctl's commands run on one thread, so the writes never race each other.
nonisolated(unsafe) private var savedTerminal = SavedTerminal()

/// A signal handler: the terminal as it was (write and tcsetattr are async-signal-safe; the
/// sequence is a static string), then the signal's default action, so the process ends with it.
private func restoreTerminalAndReraise(_ number: Int32) {
    if savedTerminal.isSaved {
        _ = write(savedTerminal.output, leaveSequence.utf8Start, leaveSequence.utf8CodeUnitCount)
        var attributes = savedTerminal.attributes
        _ = tcsetattr(savedTerminal.input, TCSANOW, &attributes)
    }
    signal(number, SIG_DFL)
    raiseUnblocked(number)
}

/// Raises `number` with it unblocked: a handler runs with its own signal blocked, so a plain
/// `raise` would only leave it pending until the handler returns. (sigprocmask and raise are
/// async-signal-safe; returning from the handler puts the previous mask back.)
private func raiseUnblocked(_ number: Int32) {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, number)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(number)
}

/// The SIGTSTP handler: the terminal as it was, then stop (the default action of SIGTSTP, raised
/// with this handler out of the way); when SIGCONT resumes the process, `raise` returns here and
/// the screen is set up again (its next frame redraws it). Async-signal-safe as the one above.
private func restoreTerminalAndStop(_ number: Int32) {
    let onScreen = savedTerminal.isSaved
    if onScreen {
        _ = write(savedTerminal.output, leaveSequence.utf8Start, leaveSequence.utf8CodeUnitCount)
        var attributes = savedTerminal.attributes
        _ = tcsetattr(savedTerminal.input, TCSANOW, &attributes)
    }
    signal(SIGTSTP, SIG_DFL)
    raiseUnblocked(SIGTSTP)
    // Resumed (SIGCONT).
    signal(SIGTSTP, restoreTerminalAndStop)
    if onScreen {
        var raw = savedTerminal.raw
        _ = tcsetattr(savedTerminal.input, TCSANOW, &raw)
        _ = write(savedTerminal.output, enterSequence.utf8Start, enterSequence.utf8CodeUnitCount)
    }
}
