import Foundation
import Testing

@testable import TenderHandoff

@Suite("Openers")
struct OpenerTests {
    @Test("CommandOpener runs the command with the URL as its last argument and reports its exit status")
    func commandOpener() async throws {
        let directory = TemporaryDirectory()
        let output = directory.path("argument.txt")
        let url = URL(string: "square-commerce-v1://payment/create?data=%7B%7D")!
        let writer = CommandOpener(executable: "/bin/sh", arguments: ["-c", "printf '%s' \"$0\" > '\(output)'"])
        #expect(await writer.open(url))
        #expect(
            FileManager.default.contents(atPath: output).map { String(decoding: $0, as: UTF8.self) }
                == url.absoluteString
        )
        #expect(await CommandOpener(executable: "/bin/sh", arguments: ["-c", "exit 3"]).open(url) == false)
        #expect(await CommandOpener(executable: directory.path("no-such-program")).open(url) == false)
    }

    @Test("a coordinator whose command cannot open the POS app marks the payment not_opened")
    func failingCommand() async throws {
        let harness = try Harness(opener: CommandOpener(executable: "/bin/sh", arguments: ["-c", "exit 1"]))
        await expectError(.cannotOpenPOSApp) { try await harness.coordinator.pay(SquareFixture.request()) }
        #expect(try harness.journal.entries().map(\.state) == [.notOpened])
    }
}
