import Foundation
import Tender
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tender sandbox` as one merchant: the simulated POS apps record what they approve on the Square and SumUp REST
/// stand-ins (issue 22; the flags are a contract).
@Suite("tender sandbox: the providers' servers")
struct SandboxServersCLITests {
    static let squareToken = "EAAAcli-servers-square-token"
    static let sumUpToken = "cli-servers-sumup-token"

    @Test("--square-location-id logs Point of Sale in there; its approval is an order; --sumup-… serves SumUp's lookup")
    func oneMerchant() async throws {
        let sandbox = try SandboxProcess([
            "--square-access-token", Self.squareToken, "--square-location-id", "LCLI1",
            "--sumup-access-token", Self.sumUpToken, "--sumup-merchant-code", "MCLI1",
        ])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        _ = try await sandbox.readLine()
        let square = try await sandbox.readLine()
        #expect(square.hasPrefix("Square: one seller"))
        #expect(square.contains("location LCLI1"))
        let sumUp = try await sandbox.readLine()
        #expect(
            sumUp
                == "SumUp: merchant MCLI1; the SumUp app records its payments, served at \(base)/v2.1/merchants/MCLI1/transactions"
        )

        // A request for LCLI1 is approved (not location_id_mismatch) and its transaction_id is an order there.
        let request = try await CLIRunner.run([
            "square", "request", "--application-id", "sq0idp-cli", "--callback", "my-app://done", "--amount", "1999",
            "--currency", "USD", "--location-id", "LCLI1", "--tenders", "card",
        ])
        #expect(request.status == 0, "\(request.stderr)")
        let simulated = try await Self.call(
            base + "/api/simulate",
            json:
                #"{"request_url": "\#(request.stdout.trimmingCharacters(in: .whitespacesAndNewlines))", "outcome": "approved"}"#
        )
        let callback = try #require(simulated.object["callback_url"]?.stringValue, "\(simulated.body)")
        let response = try SquareResponse(callbackURLString: callback)
        let orderID = try #require(response.transactionID)
        let order = try await Self.call(base + "/v2/orders/\(orderID)", bearer: Self.squareToken)
        #expect(order.status == 200, "\(order.body)")
        let orderObject = try #require(order.object["order"]?.objectValue)
        #expect(orderObject["location_id"] == .string("LCLI1"))
        let tender = try #require(orderObject["tenders"]?.arrayValue?.first?.objectValue)
        #expect(tender["amount_money"]?.objectValue?["amount"] == .number("1999"))
        let paymentID = try #require(tender["payment_id"]?.stringValue)
        let payment = try await Self.call(base + "/v2/payments/\(paymentID)", bearer: Self.squareToken)
        #expect(payment.object["payment"]?.objectValue?["status"] == .string("COMPLETED"))

        // A SumUp approval is found by its foreign transaction ID.
        let sumUpRequest = try await CLIRunner.run([
            "sumup", "request", "--amount", "450", "--currency", "USD", "--affiliate-key", "KEY",
            "--callback-success", "my-app://ok", "--foreign-transaction-id", "cli-order-7",
        ])
        #expect(sumUpRequest.status == 0, "\(sumUpRequest.stderr)")
        let approved = try await Self.call(
            base + "/api/simulate",
            json:
                #"{"request_url": "\#(sumUpRequest.stdout.trimmingCharacters(in: .whitespacesAndNewlines))", "outcome": "approve"}"#
        )
        let sumUpCallback = try #require(approved.object["callback_url"]?.stringValue)
        let code = try #require(try SumUpResponse(callbackURLString: sumUpCallback).transactionCode)
        let found = try await Self.call(
            base + "/v2.1/merchants/MCLI1/transactions?foreign_transaction_id=cli-order-7",
            bearer: Self.sumUpToken
        )
        #expect(found.status == 200, "\(found.body)")
        #expect(found.object["transaction_code"] == .string(code))
        #expect(found.object["amount"] == .number("4.5"))
        #expect(
            try await Self.call(base + "/v2.1/merchants/MCLI1/transactions?foreign_transaction_id=cli-order-7").status
                == 401
        )

        let rest = await sandbox.stop().output
        #expect(rest.contains("square payment \(paymentID) in order \(orderID)"))
        #expect(rest.contains("sumup transaction \(code) SUCCESSFUL"))
        #expect(!rest.contains(Self.squareToken) && !rest.contains(Self.sumUpToken))
    }

    @Test(
        "bad SumUp and location flags: exit 1, one line naming the flag, nothing on standard output",
        arguments: [
            (["--sumup-access-token", "T"], "--sumup-merchant-code"),
            (["--sumup-merchant-code", "M"], "--sumup-access-token"),
            (["--sumup-access-token", "", "--sumup-merchant-code", "M"], "--sumup-access-token"),
            (["--sumup-access-token", "T", "--sumup-merchant-code", "M/../x"], "--sumup-merchant-code"),
        ]
    )
    func badFlags(arguments: [String], flag: String) async throws {
        let result = try await CLIRunner.run(["sandbox", "--port", "0"] + arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(flag), "\(result.stderr)")
    }

    @Test("a --merchant profile logged in elsewhere than --square-location-id is refused: they are one seller")
    func profileElsewhere() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = directory.appendingPathComponent("merchant.json")
        try Data(#"{"location_id": "LELSEWHERE"}"#.utf8).write(to: profile)
        let refused = try await CLIRunner.run([
            "sandbox", "--port", "0", "--merchant", profile.path, "--square-access-token", "T",
            "--square-location-id", "LHERE",
        ])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("--square-location-id") && refused.stderr.contains("LELSEWHERE"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    @Test("--help names the application secret the stand-in accepts, the SumUp flags and the new endpoints")
    func help() async throws {
        let help = try await CLIRunner.run(["sandbox", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
        for expected in [
            "sq0csp-TenderSandboxSecret", "sq0idp-TenderSandbox", "--sumup-access-token", "--sumup-merchant-code",
            "/v2/orders/{id}", "batch-retrieve", "/v2/payments/{id}", "ListPayments",
            "/v2.1/merchants/{merchant_code}/transactions", "approve:offline", "approved",
        ] {
            #expect(text.contains(expected), "--help does not mention \(expected)")
        }
    }

    struct Answer {
        var status: Int
        var body: String
        var object: JSONObject
    }

    /// A GET, or a JSON POST when `json` is given, with a bearer token when given.
    static func call(_ url: String, bearer: String? = nil, json: String? = nil) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: url)))
        if let bearer { request.setValue("Bearer " + bearer, forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let body = String(decoding: data, as: UTF8.self)
        return Answer(
            status: (response as? HTTPURLResponse)?.statusCode ?? 0,
            body: body,
            object: (try? JSONValue.parse(body))?.objectValue ?? JSONObject()
        )
    }
}
