/// The one check of the words typed that ArgumentParser leaves to the tool: a flag typed twice. ArgumentParser keeps
/// the last value of an option given twice without a word, so `--amount 500 --amount 5000` would ask for 50.00.
enum RepeatedFlags {
    /// The options that take one more value each time they are given: `--tag table=4 --tag seat=12`.
    static let repeatable: Set<String> = ["--tag", "--square-redirect-uri"]

    /// Refuses a flag typed twice, or an option typed under two of its names, before `--` (after which every word
    /// is an argument).
    static func check(_ arguments: [String]) throws {
        var typed: [String: String] = [:]  // each option → the name it was first typed as
        for word in arguments.prefix(while: { $0 != "--" }) where word.hasPrefix("--") {
            let name = String(word.prefix { $0 != "=" })
            let option = CallbackOption.aliases.contains(String(name.dropFirst(2))) ? "--callback" : name
            guard !repeatable.contains(option), let first = typed.updateValue(name, forKey: option) else { continue }
            throw CLIError(
                first == name
                    ? "\(name) was given twice; give it once."
                    : "\(first) and \(name) are two names of one option; give it once."
            )
        }
    }
}
