import Foundation
import TenderTestSupport
import Testing

/// A `tender` command as its `--help` describes it to a user: what the tests of the help's truth and of bad input
/// walk, so that a command or an option added later is walked too.
struct HelpedCommand: CustomTestStringConvertible, Sendable {
    /// The words after `tender`, such as `["pay", "swipe"]`.
    var path: [String]
    /// The options listed under OPTIONS, by their long name (`--amount`), with whether each takes a value.
    var options: [(name: String, takesValue: Bool)]
    /// The subcommands listed under SUBCOMMANDS.
    var subcommands: [String]
    /// The options the usage line shows outside brackets: the required ones.
    var requiredOptions: Set<String>

    /// `pay swipe`.
    var name: String { path.joined(separator: " ") }
    var testDescription: String { "tender \(name)" }

    /// The options that take a value.
    var valueOptions: [String] { options.filter(\.takesValue).map(\.name) }

    /// Options every command lists, which ArgumentParser itself implements.
    static let builtIn: Set<String> = ["--help", "--version"]
}

/// Every command of `tender`, read from the help of the tool and of each command in turn.
enum CommandCatalog {
    /// Every command, groups (such as `pay`) included, in the help's order.
    static func all() async throws -> [HelpedCommand] {
        var found: [HelpedCommand] = []
        var queue: [[String]] = [[]]
        while !queue.isEmpty {
            let path = queue.removeFirst()
            let command = try await read(path)
            if !path.isEmpty { found.append(command) }
            queue += command.subcommands.map { path + [$0] }
        }
        return found
    }

    /// The commands that run something: those without subcommands.
    static func leaves() async throws -> [HelpedCommand] {
        try await all().filter(\.subcommands.isEmpty)
    }

    /// Reads `tender <path> --help`.
    static func read(_ path: [String]) async throws -> HelpedCommand {
        let result = try await CLIRunner.run(path + ["--help"])
        #expect(result.status == 0 && result.stderr.isEmpty, "tender \(path) --help: \(result.stderr)")
        return parse(path: path, help: result.stdout)
    }

    /// Parses a help screen.
    static func parse(path: [String], help: String) -> HelpedCommand {
        var options: [(String, Bool)] = []
        var subcommands: [String] = []
        var required: Set<String> = []
        var section = ""
        for line in help.components(separatedBy: "\n") {
            if line.hasPrefix("USAGE: ") {
                required = requiredOptions(inUsage: String(line.dropFirst("USAGE: ".count)))
                continue
            }
            if let first = line.first, first != " " {
                section = line
                continue
            }
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let head = words.first else { continue }
            switch section {
            case "OPTIONS:":
                // `  --amount <minor-units>  …`, `  -h, --help  …`, `  --filemaker  …`, and an option with an alias:
                // `  --callback, --return-url <url>`, listed by its first name.
                guard let index = words.firstIndex(where: { $0.hasPrefix("--") }) else { continue }
                let name = String(words[index].hasSuffix(",") ? words[index].dropLast() : words[index])
                let names = words[index...].prefix { $0.hasPrefix("-") }
                let takesValue = words.dropFirst(index + names.count).first?.hasPrefix("<") == true
                options.append((name, takesValue))
            case "SUBCOMMANDS:":
                // Not the closing "See 'tender help <subcommand>'" line.
                if head.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }) { subcommands.append(String(head)) }
            default:
                break
            }
        }
        return HelpedCommand(
            path: path,
            options: options,
            subcommands: subcommands,
            requiredOptions: required
        )
    }

    /// The options of a usage line outside `[…]`.
    static func requiredOptions(inUsage usage: String) -> Set<String> {
        var depth = 0
        var outside = ""
        for character in usage {
            if character == "[" { depth += 1 }
            if depth == 0 { outside.append(character) }
            if character == "]" { depth -= 1 }
        }
        return Set(outside.split(separator: " ").filter { $0.hasPrefix("--") }.map(String.init))
    }
}

extension CLIRunner {
    /// Runs `tender` like ``run(_:environment:)``, but ends it after `timeout` seconds: for commands that could
    /// run until interrupted (`sandbox`) if a check failed to refuse their input. A run that is ended has status -1.
    static func run(
        _ arguments: [String],
        environment: [String: String]? = nil,
        timeout: TimeInterval
    ) async throws -> Result {
        let (process, out, err) = process(arguments, environment: environment)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var running = process.isRunning
        while running, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            running = process.isRunning
        }
        let ended = running
        if ended { process.terminate() }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let stdout = out.fileHandleForReading.readToEndRetryingInterrupts()
                let stderr = err.fileHandleForReading.readToEndRetryingInterrupts()
                process.waitUntilExit()
                continuation.resume(
                    returning: Result(
                        status: ended ? -1 : process.terminationStatus,
                        stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr, as: UTF8.self)
                    )
                )
            }
        }
    }
}
