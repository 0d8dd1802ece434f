import Foundation

/// The flags every side-by-side benchmark (Swift next to the C baseline) takes:
/// `--quick`, `--reps N`, `--no-c`, `--baseline DIR`, `-h`/`--help`.
public struct ComparisonOptions: Sendable {
    public var quick = false
    public var repetitions: Int
    public var runC = true
    public var baselineDirectory = BaselineLocation.defaultDirectory
    public var helpRequested = false

    /// Parses `arguments`; `extra` may consume a benchmark's own flag at `index` (advancing `index`
    /// past any value it takes) and returns false for a flag it does not know.
    /// - Throws: a message naming the bad or unknown argument.
    public init(
        _ arguments: [String],
        repetitions: Int,
        extra: (_ arguments: [String], _ index: inout Int) throws -> Bool = { _, _ in false }
    ) throws(OptionError) {
        self.repetitions = repetitions
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--quick": quick = true
            case "--no-c": runC = false
            case "--reps":
                index += 1
                guard index < arguments.count, let reps = Int(arguments[index]), reps > 0 else {
                    throw OptionError("--reps needs a number")
                }
                self.repetitions = reps
            case "--baseline":
                index += 1
                guard index < arguments.count else { throw OptionError("--baseline needs a directory") }
                baselineDirectory = arguments[index]
            case "-h", "--help":
                helpRequested = true
            default:
                let known: Bool
                do { known = try extra(arguments, &index) } catch { throw OptionError("\(error)") }
                guard known else { throw OptionError("unknown argument \(arguments[index]) (try --help)") }
            }
            index += 1
        }
    }
}

/// A usage error in a benchmark's command line.
public struct OptionError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension ComparisonOptions {
    /// Parses like `init`, but prints `usage` and exits 0 on `--help`, and prints the error to
    /// stderr and exits 64 on a bad argument: what a benchmark's `main` does with its flags.
    public static func parseOrExit(
        _ arguments: [String],
        repetitions: Int,
        tool: String,
        usage: [String],
        extra: (_ arguments: [String], _ index: inout Int) throws -> Bool = { _, _ in false }
    ) -> ComparisonOptions {
        let options: ComparisonOptions
        do {
            options = try ComparisonOptions(arguments, repetitions: repetitions, extra: extra)
        } catch {
            FileHandle.standardError.write(Data("\(tool): \(error.description)\n".utf8))
            exit(64)
        }
        if options.helpRequested {
            for line in usage { print(line) }
            exit(0)
        }
        return options
    }
}
