import ArgumentParser
import Foundation
import Tender

/// Checks of the words typed that ArgumentParser leaves to the tool, made in one place for every command against
/// the command's own description of its arguments (ArgumentParser's JSON dump of it): a single-value option given
/// twice (ArgumentParser keeps the last value silently), text over the limit of what keeps it (never cut), an
/// unknown command or provider, and a flag that was renamed.
enum ArgumentCheck {
    /// A command as the dump describes it.
    struct Command: Decodable {
        var arguments: [Argument]?

        /// The argument one of whose names is `name`, such as `--amount`.
        func argument(named name: String) -> Argument? {
            arguments?.first { $0.flags.contains(name) }
        }
    }

    /// An argument as the dump describes it.
    struct Argument: Decodable {
        /// `positional`, `option` or `flag`.
        var kind: String
        var isRepeating: Bool
        var names: [Name]?

        /// The names as typed: `--amount`, `-h`.
        var flags: [String] { (names ?? []).map(\.flag) }
    }

    /// A name of an argument as the dump describes it.
    struct Name: Decodable {
        /// `long`, `short` or `longWithSingleDash`.
        var kind: String
        var name: String

        /// The name as typed.
        var flag: String { kind == "long" ? "--" + name : "-" + name }
    }

    private struct Dump: Decodable {
        var command: Command
    }

    /// The limits of text options whose values something keeps bounded: the journal keeps at most 1024 characters
    /// of a resolution's note and 256 of a transaction ID, and would cut longer ones.
    static let textLimits: [String: [String: Int]] = [
        "journal resolve": ["--note": 1024, "--transaction-id": 256]
    ]

    /// Flags that were renamed or removed, by command: the flag, and what to use instead.
    static let retiredFlags: [String: [String: String]] = {
        var swipe: [String: String] = [:]
        for field in ["first-name", "last-name", "address", "city", "state", "zip", "phone", "country"] {
            swipe["--" + field] =
                "use --billing-\(field), Swipe's billing \(field.replacingOccurrences(of: "-", with: " "))"
        }
        let token = "'tender pay' carries its one-time token in that field; name the payment with --payment-id"
        return [
            "swipe request": swipe,
            "pay swipe": swipe,
            "square request": ["--state": "use --user-info", "--web": "use --dialect web"],
            "pay square": ["--state": token, "--user-info": token, "--web": "use --dialect web"],
            "pay sumup": [
                "--foreign-transaction-id":
                    "'tender pay' gives every SumUp payment a foreign-tx-id of its own, kept in the journal and sent "
                    + "again on a reopen; name the payment with --payment-id"
            ],
        ]
    }()

    /// The command type `arguments` name, its path such as `pay square`, and the arguments after its name.
    static func resolve(
        _ arguments: [String]
    ) -> (command: any ParsableCommand.Type, path: [String], rest: ArraySlice<String>) {
        var command: any ParsableCommand.Type = TenderCommand.self
        var path: [String] = []
        var rest = arguments[...]
        while let word = rest.first,
            let subcommand = command.configuration.subcommands.first(where: { $0.configuration.commandName == word })
        {
            command = subcommand
            path.append(word)
            rest = rest.dropFirst()
        }
        return (command, path, rest)
    }

    /// Checks arguments that ArgumentParser has accepted: no single-value option twice, no text over its limit.
    static func check(_ arguments: [String]) throws {
        let (type, path, rest) = resolve(arguments)
        let limits = textLimits[path.joined(separator: " ")] ?? [:]
        // The description is read only when a check can fail: a name typed twice, or text with a limit.
        let names = rest.prefix { $0 != "--" }.filter { $0.hasPrefix("-") }.map { $0.prefix { $0 != "=" } }
        guard !limits.isEmpty || Set(names).count < names.count else { return }
        let command = try JSONDecoder().decode(Dump.self, from: Data(type._dumpHelp().utf8)).command
        var given: Set<String> = []
        var index = rest.startIndex
        while index < rest.endIndex {
            let word = rest[index]
            index += 1
            if word == "--" { break }
            guard word.hasPrefix("-"), word.count > 1 else { continue }
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let argument = command.argument(named: name), argument.kind == "option" else { continue }
            let value: String?
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                value = index < rest.endIndex ? rest[index] : nil
                index += 1
            }
            let key = argument.flags.first ?? name
            if !argument.isRepeating, !given.insert(key).inserted {
                throw CLIError("\(key) was given twice; give it once.")
            }
            if let limit = limits[key], let value, value.count > limit {
                throw CLIError(
                    "\(key) is \(value.count) characters; it may have at most \(limit): shorten it (nothing is cut)."
                )
            }
        }
    }

    /// A clearer message than ArgumentParser's for arguments it refused: a renamed flag, or a word that is no
    /// command or provider. `nil` when neither explains the refusal.
    static func explainRefusal(of arguments: [String]) -> CLIError? {
        let (command, path, rest) = resolve(arguments)
        let name = path.joined(separator: " ")
        if let retired = retiredFlags[name] {
            for word in rest {
                let flag = String(word.prefix { $0 != "=" })
                if let instead = retired[flag] {
                    return CLIError("\(flag) is no longer an option of 'tender \(name)': \(instead).")
                }
            }
        }
        let choices = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            .compactMap { $0.configuration.commandName }
        guard !choices.isEmpty, let word = rest.first, !word.hasPrefix("-"), word != "help" else { return nil }
        let typed = CardNumberScreen.excerpt(word)
        let providers = PaymentProvider.all.map(\.rawValue)
        if path.isEmpty {
            let others = choices.filter { !providers.contains($0) }
            return CLIError(
                "Unknown command '\(typed)': the POS apps are \(list(providers, "and")), and the other commands "
                    + "\(list(others, "and")); run 'tender help' for more."
            )
        }
        let what = Set(choices) == Set(providers) ? "provider" : "command"
        return CLIError("Unknown \(what) '\(typed)' for 'tender \(name)': use \(list(choices, "or")).")
    }

    /// `a, b and c`.
    private static func list(_ items: [String], _ conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}
