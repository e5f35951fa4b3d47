import ArgumentParser
import Tender

/// Where a command is in `tender`'s tree of commands, and what a group's commands are.
enum CommandPath {
    /// The words after `tender` that name `command`, such as `["pay", "square"]`.
    static func words(of command: any ParsableCommand.Type) -> [String] {
        func search(_ group: any ParsableCommand.Type, _ path: [String]) -> [String]? {
            if ObjectIdentifier(group) == ObjectIdentifier(command) { return path }
            for subcommand in group.configuration.subcommands {
                if let found = search(subcommand, path + [subcommand.configuration.commandName ?? ""]) { return found }
            }
            return nil
        }
        return search(TenderCommand.self, []) ?? []
    }

    /// Why `word`, typed after `group`'s words, is refused: it is none of `group`'s commands. Lists them.
    static func refusal(of word: String, in group: any ParsableCommand.Type) -> CLIError {
        let typed = UntrustedText.safe(word)
        let path = (["tender"] + CommandPath.words(of: group)).joined(separator: " ")
        let choices = group.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            .compactMap { $0.configuration.commandName }
        let providers = PaymentProvider.all.map(\.rawValue)
        if ObjectIdentifier(group) == ObjectIdentifier(TenderCommand.self) {
            let others = choices.filter { !providers.contains($0) }
            let first = word.hasPrefix("-") ? "'\(typed)' is no option of 'tender'" : "Unknown command '\(typed)'"
            return CLIError(
                "\(first): the POS apps are \(list(providers, "and")), and the other commands \(list(others, "and")); "
                    + "run 'tender help' for more."
            )
        }
        let what = Set(choices) == Set(providers) ? "provider" : "command"
        if word.hasPrefix("-") {
            return CLIError("'\(typed)' is no option of '\(path)': name a \(what) first: \(list(choices, "or")).")
        }
        return CLIError("Unknown \(what) '\(typed)' for '\(path)': use \(list(choices, "or")).")
    }

    /// `a, b and c`.
    private static func list(_ items: [String], _ conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}
