#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where rexctl writes text: the process's stdout/stderr, or a buffer in tests.
protocol TextOutput: AnyObject {
    func write(_ text: String)
    /// Whether this is an interactive terminal (enables colour and in-place redraws).
    var isTerminal: Bool { get }
}

extension TextOutput {
    /// Writes `text` and a newline.
    func line(_ text: String = "") { write(text + "\n") }

    /// Writes `text` escaped for the terminal (``TerminalText``) and a newline: for free-form
    /// lines that quote what a node sent or what was typed.
    func escapedLine(_ text: String) { line(TerminalText.escaped(text)) }

    /// Writes `Error: <message>` and a newline, the message escaped for the terminal: every
    /// error line goes through here, since messages quote node replies, ids and arguments.
    func errorLine(_ message: String) { escapedLine("Error: " + message) }
}

/// Writes straight to a file descriptor (unbuffered, so progress lines appear at once).
final class FileDescriptorOutput: TextOutput {
    let fileDescriptor: Int32
    let isTerminal: Bool

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        self.isTerminal = isatty(fileDescriptor) == 1
    }

    static func standardOutput() -> FileDescriptorOutput { FileDescriptorOutput(fileDescriptor: 1) }
    static func standardError() -> FileDescriptorOutput { FileDescriptorOutput(fileDescriptor: 2) }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// `write(2)`, named apart from ``TextOutput/write(_:)``.
private func systemWrite(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// Collects text in memory (tests).
final class BufferOutput: TextOutput {
    private(set) var text = ""
    var isTerminal: Bool

    init(isTerminal: Bool = false) { self.isTerminal = isTerminal }

    func write(_ text: String) { self.text += text }
}

/// ANSI styling, enabled only for terminals and when `NO_COLOR` is unset.
struct Style: Sendable {
    var isEnabled: Bool

    func bold(_ text: String) -> String { wrap(text, "1") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func dim(_ text: String) -> String { wrap(text, "2") }

    /// Colours a status word: alive/live/yes green, suspect/settling yellow, gone/no red.
    func status(_ text: String) -> String {
        switch text {
        case "alive", "live", "yes": return green(text)
        case "suspect", "settling", "unknown": return yellow(text)
        case "gone", "no": return red(text)
        default: return text
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
