import Foundation
import Testing

/// The help tells the truth (issue 24): for every command, each option its `--help` lists is accepted and works;
/// the usage line shows required exactly what the command requires; and no single-value option is taken twice.
/// The commands and their options are read from the help itself, so a command or an option added later is walked
/// too, and one without a scenario fails.
@Suite("tender --help tells the truth", .serialized)
struct HelpTruthCLITests {
    @Test("every listed option of every command is accepted and works; the usage shows required what is required")
    func everyOption() async throws {
        try await CommandScenarios.with { scenarios in try await Self.everyOption(scenarios) }
    }

    static func everyOption(_ scenarios: CommandScenarios) async throws {
        let commands = try await CommandCatalog.leaves()
        #expect(commands.count >= 19, "commands read from the help: \(commands.map(\.name))")
        for command in commands {
            guard let scenario = scenarios.scenarios[command.name] else {
                Issue.record("no scenario for 'tender \(command.name)': add one to CommandScenarios")
                continue
            }
            // The base run holds the required options, and only those the test environment needs besides.
            let base = try await scenario.base()
            let given = Set(base.filter { $0.hasPrefix("--") })
            #expect(
                command.requiredOptions.isSubset(of: given),
                "tender \(command.name): required \(command.requiredOptions), base gives \(given)"
            )
            #expect(
                given.subtracting(command.requiredOptions).isSubset(of: scenario.environmentOptions),
                "tender \(command.name): \(given.subtracting(command.requiredOptions)) are not shown required"
            )
            let plain = try await scenario.run(base)
            #expect(plain.status == 0, "tender \(command.name) \(base): \(plain.stderr)")
            for (option, takesValue) in command.options where !HelpedCommand.builtIn.contains(option) {
                guard !given.contains(option) || scenario.replaces[option] != nil else { continue }
                let arguments = try await scenario.arguments(
                    trying: option,
                    takesValue: takesValue,
                    samples: scenarios.samples
                )
                let result = try await scenario.run(arguments)
                if let refusal = scenario.refusals[option] {
                    #expect(result.status == 1 && result.stderr.contains(refusal), "tender \(command.name) \(option)")
                } else {
                    #expect(
                        result.status == 0,
                        "tender \(command.name) lists \(option) but refuses it: \(arguments) → \(result.stderr)"
                    )
                }
            }
        }
    }

    @Test("a single-value option given twice is refused by every command, naming it; a repeatable one is not")
    func repeatedOptions() async throws {
        try await CommandScenarios.with { scenarios in try await Self.repeatedOptions(scenarios) }
    }

    static func repeatedOptions(_ scenarios: CommandScenarios) async throws {
        var checked = 0
        for command in try await CommandCatalog.leaves() {
            guard let scenario = scenarios.scenarios[command.name] else {
                Issue.record("no scenario for 'tender \(command.name)': add one to CommandScenarios")
                continue
            }
            for option in command.valueOptions where !scenario.repeatable.contains(option) {
                var arguments = try await scenario.arguments(
                    trying: option,
                    takesValue: true,
                    samples: scenarios.samples
                )
                if !arguments.contains(option) { arguments += [option, scenarios.samples[option] ?? "x"] }
                arguments += [option, scenarios.samples[option] ?? "x"]
                let result = try await CLIRunner.run(
                    command.path + arguments,
                    environment: scenarios.environment,
                    timeout: 20
                )
                #expect(result.status == 1, "tender \(command.name) \(option) twice: \(result.status)")
                #expect(result.stdout.isEmpty, "tender \(command.name) \(option) twice")
                #expect(
                    result.stderr == "error: \(option) was given twice; give it once.\n",
                    "tender \(command.name): \(result.stderr)"
                )
                checked += 1
            }
        }
        #expect(checked > 100, "options checked: \(checked)")
    }

    @Test("pay shows required what it requires: the --callback of every provider, and swipe's --return-app-name")
    func payRequirements() async throws {
        let swipe = try await CommandCatalog.read(["pay", "swipe"])
        #expect(swipe.requiredOptions.isSuperset(of: ["--callback", "--return-app-name"]))
        let softPOS = try await CommandCatalog.read(["pay", "softpos"])
        #expect(softPOS.requiredOptions.contains("--callback"))
        let sumUp = try await CommandCatalog.read(["pay", "sumup"])
        #expect(sumUp.requiredOptions.contains("--callback"))
        _ = try await expectBadInput(
            ["pay", "swipe", "--amount", "500", "--return-app-name", "Shop"],
            mentioning: "--callback"
        )
    }

    @Test(
        "the fields where pay puts its token are not offered, and typing one is refused naming it",
        arguments: [
            (["pay", "square"], "--user-info"), (["pay", "sumup"], "--foreign-transaction-id"),
        ]
    )
    func tokenFields(path: [String], option: String) async throws {
        let command = try await CommandCatalog.read(path)
        #expect(!command.options.contains { $0.name == option })
        let complete =
            path == ["pay", "square"]
            ? ["--application-id", "a", "--callback", "my-app://done", "--amount", "100", "--currency", "USD"]
            : ["--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--callback", "my-app://ok"]
        _ = try await expectBadInput(path + complete + [option, "mine"], mentioning: "Unknown option '\(option)'")
    }

    @Test("help and version go to stdout with status 0, for every command")
    func helpAndVersion() async throws {
        for command in try await CommandCatalog.all() {
            for flag in ["--help", "--version"] {
                let result = try await CLIRunner.run(command.path + [flag])
                #expect(result.status == 0 && result.stderr.isEmpty, "tender \(command.name) \(flag)")
                #expect(!result.stdout.isEmpty)
            }
        }
    }
}
