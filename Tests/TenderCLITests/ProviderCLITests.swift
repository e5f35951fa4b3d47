import Foundation
import Testing

@testable import Tender

/// Runs `tender` and checks the bad-input contract: status 1, nothing on stdout, exactly one line on stderr.
func expectBadInput(
    _ arguments: [String],
    mentioning fragment: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> String {
    let result = try await CLIRunner.run(arguments)
    #expect(result.status == 1, sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
    if let fragment {
        #expect(result.stderr.contains(fragment), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }
    return result.stderr
}

/// Runs `tender` successfully and returns its single line of output.
func expectLine(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let result = try await CLIRunner.run(arguments)
    #expect(result.status == 0, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.isEmpty, sourceLocation: sourceLocation)
    #expect(
        result.stdout.hasSuffix("\n") && result.stdout.filter { $0 == "\n" }.count == 1,
        sourceLocation: sourceLocation
    )
    return String(result.stdout.dropLast())
}

/// Decodes `tender decode` output.
func decodeJSON(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONObject {
    let line = try await expectLine(["decode"] + arguments, sourceLocation: sourceLocation)
    return try #require(try JSONValue.parse(line).objectValue, sourceLocation: sourceLocation)
}

@Suite("tender swipe request")
struct SwipeCLITests {
    @Test("prints the vendor's sample request (swipe §1)")
    func vendorSample() async throws {
        let line = try await expectLine([
            "swipe", "request", "--amount", "1099", "--email", "john@example.com",
            "--return-url", "com-companyname-demoapp://action/", "--return-app-name", "DemoApp",
        ])
        #expect(
            line
                == "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=john%40example.com&returnURL=com-companyname-demoapp%3A%2F%2Faction%2F&returnAppName=DemoApp"
        )
    }

    @Test("the amount always goes out with two decimals: 500 minor units or --decimal-amount 5 → 5.00 (swipe §1)")
    func twoDecimals() async throws {
        #expect(
            try await expectLine(["swipe", "request", "--amount", "500"])
                == "com-appninjas-iswipe://charge/1.0.0/?amount=5.00"
        )
        #expect(
            try await expectLine(["swipe", "request", "--amount", "5"])
                == "com-appninjas-iswipe://charge/1.0.0/?amount=0.05"
        )
        #expect(
            try await expectLine(["swipe", "request", "--decimal-amount", "5"])
                == "com-appninjas-iswipe://charge/1.0.0/?amount=5.00"
        )
        #expect(
            try await expectLine(["swipe", "request", "--decimal-amount", "0.5"])
                == "com-appninjas-iswipe://charge/1.0.0/?amount=0.50"
        )
    }

    @Test("every flag reaches the wire (swipe §1)")
    func everyFlag() async throws {
        let line = try await expectLine([
            "swipe", "request", "--amount", "1200", "--currency", "CAD", "--return-url", "my-app://done",
            "--return-app-name", "My App", "--filemaker", "--email", "a+b@c.d", "--billing-first-name", "Jane",
            "--billing-last-name", "Doe", "--billing-address", "1 Main St", "--billing-city", "Toronto",
            "--billing-state", "ON", "--billing-zip", "M5V", "--billing-phone", "+1 416", "--billing-country", "CA",
            "--invoice-number", "INV-1", "--description", "Tea & cake",
        ])
        #expect(
            line
                == "com-appninjas-iswipe://charge/1.0.0/?amount=12.00&email=a%2Bb%40c.d&firstName=Jane&lastName=Doe"
                + "&address=1%20Main%20St&city=Toronto&state=ON&zip=M5V&phone=%2B1%20416&country=CA&invoiceNumber=INV-1"
                + "&description=Tea%20%26%20cake&returnURL=my-app%3A%2F%2Fdone&returnAppName=My%20App&fm=1"
        )
    }

    @Test("bad input: status 1 and one line on stderr")
    func badInput() async throws {
        _ = try await expectBadInput(
            ["swipe", "request", "--amount", "5", "--return-url", "my-app://x"],
            mentioning: "--return-app-name"
        )
        _ = try await expectBadInput(
            ["swipe", "request", "--amount", "5", "--return-app-name", "X"],
            mentioning: "--callback (alias --return-url"
        )
        _ = try await expectBadInput(["swipe", "request", "--decimal-amount", "5.001"], mentioning: "--decimal-amount")
        _ = try await expectBadInput(["swipe", "request", "--amount", "5.00"], mentioning: "--amount 500")
        _ = try await expectBadInput(["swipe", "request", "--amount", "ten"], mentioning: "--amount")
        _ = try await expectBadInput(["swipe", "request", "--amount", "0"], mentioning: "0.01")
        _ = try await expectBadInput(["swipe", "request", "--amount", "5", "--currency", "JPY"], mentioning: "JPY")
        _ = try await expectBadInput(
            ["swipe", "request", "--amount", "5", "--currency", "XXX1"],
            mentioning: "--currency"
        )
        _ = try await expectBadInput(
            ["swipe", "request", "--amount", "5", "--return-url", "softpos://x", "--return-app-name", "A"],
            mentioning: "scheme"
        )
        _ = try await expectBadInput(["swipe", "request"])
        _ = try await expectBadInput(["swipe", "request", "--amount", "5", "--bogus"])
        // A character a URL cannot hold is refused, not encoded with the URL's escapes encoded again.
        _ = try await expectBadInput(
            [
                "swipe", "request", "--amount", "1", "--return-url", #"my-app://r?x=a%20b&y="q""#, "--return-app-name",
                "A",
            ],
            mentioning: "percent-encoded"
        )
    }

    @Test("a return URL's own escapes come back as they were given (swipe §2)")
    func returnURLEscapesKept() async throws {
        let line = try await expectLine([
            "swipe", "request", "--amount", "1", "--return-url", "my-app://r?x=a%20b", "--return-app-name", "A",
        ])
        #expect(line.contains("returnURL=my-app%3A%2F%2Fr%3Fx%3Da%2520b&"))
    }
}

@Suite("tender softpos request")
struct SoftPOSCLITests {
    @Test("prints the vendor's sale and refund (softpos §1)")
    func vendorExamples() async throws {
        let sale = try await expectLine([
            "softpos", "request", "--type", "sale", "--amount", "200", "--currency", "EUR", "--response-url",
            "testapp://response",
        ])
        #expect(
            try PercentEncoding.decode(sale.dropFirst("softpos://softpos/transaction?payload=".count))
                == #"{"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}"#
        )
        let refund = try await expectLine([
            "softpos", "request", "--type", "refund", "--amount", "200", "--currency", "EUR",
            "--original-transaction-id", "446655", "--response-url", "testapp://response",
        ])
        #expect(
            try PercentEncoding.decode(refund.dropFirst("softpos://softpos/transaction?payload=".count))
                == #"{"amount":200,"type":"refund","originalTranId":"446655","currency":"EUR","responseUrl":"testapp://response"}"#
        )
    }

    @Test("bad input: status 1 and one line on stderr (softpos §1)")
    func badInput() async throws {
        let base = ["softpos", "request", "--amount", "200", "--currency", "EUR"]
        _ = try await expectBadInput(base + ["--type", "refund"], mentioning: "original")
        _ = try await expectBadInput(base + ["--type", "sale", "--original-transaction-id", "1"], mentioning: "sale")
        _ = try await expectBadInput(base + ["--type", "void"], mentioning: "--type")
        _ = try await expectBadInput(
            ["softpos", "request", "--type", "sale", "--amount", "200", "--currency", "USD"],
            mentioning: "EUR"
        )
        _ = try await expectBadInput(
            ["softpos", "request", "--type", "sale", "--amount", "2.00", "--currency", "EUR"],
            mentioning: "use --amount 200 (minor units) or --decimal-amount 2.00"
        )
        _ = try await expectBadInput(
            ["softpos", "request", "--type", "sale", "--amount", "0", "--currency", "EUR"],
            mentioning: "positive"
        )
        _ = try await expectBadInput(base + ["--type", "sale", "--response-url", "softpos://x"], mentioning: "scheme")
        _ = try await expectBadInput(["softpos", "request", "--type", "sale", "--amount", "200"])
    }
}

@Suite("tender sumup request")
struct SumUpCLITests {
    @Test("prints the README example (sumup §1)")
    func readmeExample() async throws {
        let line = try await expectLine([
            "sumup", "request", "--amount", "1000", "--currency", "EUR", "--affiliate-key", "YOUR-AFFILIATE-KEY",
            "--title", "Coffee beans", "--callback-success", "samplepaymentapp://", "--callback-fail",
            "samplepaymentapp://",
            "--foreign-transaction-id", "order-123",
        ])
        #expect(
            line
                == "sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=YOUR-AFFILIATE-KEY&title=Coffee%20beans&callbacksuccess=samplepaymentapp%3A%2F%2F&callbackfail=samplepaymentapp%3A%2F%2F&foreign-tx-id=order-123"
        )
    }

    @Test("+ reaches the wire as %2B; every flag is sent (sumup §1)")
    func everyFlag() async throws {
        let line = try await expectLine([
            "sumup", "request", "--decimal-amount", "4.5", "--currency", "GBP", "--affiliate-key", "K",
            "--receipt-email",
            "a+b@c.d", "--receipt-phone", "+447700900123", "--skip-success-screen",
        ])
        #expect(
            line
                == "sumupmerchant://pay/1.0?amount=4.50&currency=GBP&affiliate-key=K&receipt-email=a%2Bb%40c.d&receipt-mobilephone=%2B447700900123&skip-screen-success=true"
        )
    }

    @Test("bad input: status 1 and one line on stderr (sumup §1)")
    func badInput() async throws {
        let base = ["sumup", "request", "--currency", "EUR", "--affiliate-key", "K"]
        _ = try await expectBadInput(base + ["--amount", "0"], mentioning: "positive")
        _ = try await expectBadInput(base + ["--decimal-amount", "1.234"], mentioning: "--decimal-amount")
        _ = try await expectBadInput(
            base + ["--amount", "1", "--foreign-transaction-id", String(repeating: "x", count: 129)],
            mentioning: "128"
        )
        _ = try await expectBadInput(
            base + ["--amount", "1", "--callback-fail", "sumupmerchant://x"],
            mentioning: "scheme"
        )
        let secret = "secret key"
        let stderr = try await expectBadInput([
            "sumup", "request", "--amount", "1", "--currency", "EUR", "--affiliate-key", secret,
        ])
        #expect(!stderr.contains(secret))
        _ = try await expectBadInput(
            ["sumup", "request", "--amount", "1", "--currency", "EURO", "--affiliate-key", "K"],
            mentioning: "--currency"
        )
    }

    @Test("--tag KEY=VALUE, repeatable: smpprtag-KEY in key order, an empty value left out (SMPPayment @0794d83)")
    func tags() async throws {
        let base = ["--amount", "450", "--currency", "EUR", "--affiliate-key", "K"]
        for command in [["sumup", "request"], ["pay", "sumup"]] {
            let directory = try await temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let extra =
                command[0] == "pay"
                ? ["--callback-success", "my-app://ok", "--journal", directory.appendingPathComponent("j.sqlite").path]
                : []
            let result = try await CLIRunner.run(
                command + base + extra + ["--tag", "table=4", "--tag", "note=a=b c", "--tag", "empty=", "--title", ""]
            )
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let url = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("sumupmerchant://") })
            #expect(url.hasSuffix("&smpprtag-note=a%3Db%20c&smpprtag-table=4"), "\(url)")
            #expect(!url.contains("title=") && !url.contains("empty"), "\(url)")
            #expect(try SumUpRequest(urlString: String(url)).tags == ["table": "4", "note": "a=b c"])
        }
    }

    @Test("a bad --tag is refused: status 1, one line naming the flag")
    func badTags() async throws {
        let base = ["sumup", "request", "--amount", "450", "--currency", "EUR", "--affiliate-key", "K"]
        for tag in ["table", "=4", ""] {
            _ = try await expectBadInput(base + ["--tag", tag], mentioning: "--tag must be KEY=VALUE")
        }
        _ = try await expectBadInput(base + ["--tag", "smpprtag-a=1"], mentioning: "--tag: ")
        _ = try await expectBadInput(
            base + ["--tag", "a=1", "--tag", "a=2"],
            mentioning: "--tag gives the key 'a' twice"
        )
    }
}

@Suite("tender decode for Swipe, SoftPOS and SumUp")
struct ProviderDecodeCLITests {
    @Test("a Swipe callback: provider, kind, outcome and the Swipe fields in snake case")
    func swipeCallback() async throws {
        let object = try await decodeJSON([
            "com-companyname-demoapp://action/?tender_token=t1&ifcc_responseType=approved&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX1111&ifcc_cardType=Visa&ifcc_transactionId=T9&ifcc_currency=USD"
        ])
        #expect(object["provider"] == .string("swipe"))
        #expect(object["kind"] == .string("response"))
        #expect(object["outcome"] == .string("approved"))
        #expect(object["amount"] == .string("10.99"))
        #expect(object["card_type"] == .string("Visa"))
        #expect(object["redacted_card_number"] == .string("XXXXXXXXXXXX1111"))
        #expect(object["transaction_id"] == .string("T9"))
        #expect(object["currency"] == .string("USD"))
        #expect(object["correlation_token"] == .string("t1"))
    }

    @Test("a Swipe callback with an unmasked card number fails without printing it (SEC-9)")
    func swipeUnmasked() async throws {
        let stderr = try await expectBadInput([
            "decode", "my-app://x?ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=4111111111111111",
        ])
        #expect(!stderr.contains("4111"))
    }

    @Test("a SoftPOS callback: result and error fields")
    func softPOSCallback() async throws {
        let approved = try await decodeJSON([
            SoftPOSCLIFixtures.callback(
                #"{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{"isoStan":"000206","f39":"000"}}}"#
            )
        ])
        #expect(approved["provider"] == .string("softpos"))
        #expect(approved["kind"] == .string("response"))
        #expect(approved["outcome"] == .string("approved"))
        #expect(approved["refusal_code"] == .string("00"))
        #expect(approved["transaction_id"] == .string("449333"))
        #expect(approved["custom_message"] == .object(["f39": .string("000"), "isoStan": .string("000206")]))
        #expect(approved["description"] == .null)

        let cancelled = try await decodeJSON([
            "testapp://response?result=%7B%22error%22:%7B%22description%22:%22The%20operation%20couldn%E2%80%99t%20be%20completed.%20(Softpos.SoftposReadError%20error%2010.)%22,%22softposReadError%22:%22readCancelled%22,%22errorDescription%22:%22The%20operation%20couldn%E2%80%99t%20be%20completed.%20(Softpos.SoftposReadError%20error%2010.)%22%7D%7D"
        ])
        #expect(cancelled["outcome"] == .string("cancelled"))
        #expect(cancelled["softpos_read_error"] == .string("readCancelled"))
        #expect(
            cancelled["description"]
                == .string("The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)")
        )
        #expect(cancelled["error_description"] == cancelled["description"])
        #expect(cancelled["refusal_code"] == .null)

        let failed = try await decodeJSON([
            SoftPOSCLIFixtures.callback(
                #"{"error":{"description":"d","softposError":{"errorCode":"10","message":"Read error"}}}"#
            )
        ])
        #expect(failed["outcome"] == .string("failed"))
        #expect(
            failed["softpos_error"]
                == .object([
                    "internal_error_code": .null, "error_code": .integer(10), "error_sub_code": .null,
                    "message": .string("Read error"),
                ])
        )
    }

    @Test("a SumUp callback: status, transaction code, foreign id, message")
    func sumUpCallback() async throws {
        let object = try await decodeJSON([
            "my-app://sumup?smp-status=failed&smp-tx-code=TX1&foreign-tx-id=o-1&smp-message=Card%20declined"
        ])
        #expect(object["provider"] == .string("sumup"))
        #expect(object["kind"] == .string("response"))
        #expect(object["outcome"] == .string("declined"))
        #expect(object["transaction_code"] == .string("TX1"))
        #expect(object["foreign_transaction_id"] == .string("o-1"))
        #expect(object["message"] == .string("Card declined"))
        #expect(object["failure_cause"] == .null)
        #expect(object["receipt_sent"] == .null)
    }

    @Test("a SumUp callback with the Android README's fields, and a request with tags (sumup-android-api README)")
    func sumUpNewFields() async throws {
        let callback = try await decodeJSON([
            "mycallbackscheme://result?smp-status=failed&smp-failure-cause=transaction-failed&smp-message=Transaction%20failed.&smp-receipt-sent=false&smp-tx-code=123ABC"
        ])
        #expect(callback["failure_cause"] == .string("transaction-failed"))
        #expect(callback["receipt_sent"] == .bool(false))
        let request = try await decodeJSON([
            "SumUpMerchant://PAY/1.0?amount=4.5&currency=EUR&affiliate-key=K&smpprtag-table=4&smpprtag-note=hi"
        ])
        #expect(request["amount"] == .string("4.50"))
        #expect(request["tags"] == .object(["note": .string("hi"), "table": .string("4")]))
    }

    @Test("requests of every provider decode")
    func requests() async throws {
        let swipe = try await decodeJSON([
            "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=john%40example.com&returnURL=com-companyname-demoapp%3A%2F%2Faction%2F&returnAppName=DemoApp"
        ])
        #expect(swipe["provider"] == .string("swipe"))
        #expect(swipe["kind"] == .string("request"))
        #expect(swipe["amount"] == .string("10.99"))
        #expect(swipe["return_url"] == .string("com-companyname-demoapp://action/"))
        #expect(swipe["email"] == .string("john@example.com"))

        let softPOS = try await decodeJSON([
            #"softpos://softpos/transaction?payload={"amount":200,"type":"refund","originalTranId":"446655","currency":"EUR","responseUrl":"testapp://response"}"#
        ])
        #expect(softPOS["type"] == .string("refund"))
        #expect(softPOS["amount"] == .integer(200))
        #expect(softPOS["original_transaction_id"] == .string("446655"))

        let sumUp = try await decodeJSON([
            "sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=K&foreign-tx-id=order-123"
        ])
        #expect(sumUp["provider"] == .string("sumup"))
        #expect(sumUp["amount"] == .string("10.00"))
        #expect(sumUp["foreign_transaction_id"] == .string("order-123"))
    }

    @Test("decode never prints a card number, whatever field carries it (SEC-9)")
    func decodeMasksCardNumbers() async throws {
        let urls = [
            "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&description=card%204111111111111111",
            "sumupmerchant://pay/1.0?amount=1.00&currency=EUR&affiliate-key=K&title=4111-1111-1111-1111",
            SoftPOSCLIFixtures.callback(
                #"{"error":{"description":"pan 4111111111111111","softposError":{"message":"5555555555554444"}}}"#
            ),
        ]
        for url in urls {
            let line = try await expectLine(["decode", url])
            #expect(!CardNumberScreen.containsCardNumber(line), "\(line)")
            #expect(line.contains("1111") || line.contains("4444"))
        }
    }

    @Test("--provider forces a provider; a URL of another is refused, and its parser says why")
    func forcedProvider() async throws {
        let object = try await decodeJSON(["--provider", "sumup", "my-app://x?smp-status=success"])
        #expect(object["outcome"] == .string("approved"))
        _ = try await expectBadInput(
            ["decode", "--provider", "swipe", "my-app://x?smp-status=success"],
            mentioning: "no ifcc_responseType"
        )
        _ = try await expectBadInput(
            ["decode", "--provider", "swipe", "square-commerce-v1://payment/create?data=%7B%7D"],
            mentioning: "is a square request, not a swipe"
        )
        _ = try await expectBadInput(["decode", "--provider", "sumup", "callback"], mentioning: "not a sumup")
        _ = try await expectBadInput(
            ["decode", "--provider", "paypal", "my-app://x?smp-status=success"],
            mentioning: "paypal"
        )
        _ = try await expectBadInput(["decode", "my-app://x?smp-status=maybe"], mentioning: "smp-status")
        // A bad percent-escape stops detection; with --provider, the provider's parser names it.
        for (provider, url) in [
            ("swipe", "my-app://x?ifcc_responseType=%ZZ"), ("sumup", "my-app://x?smp-status=%G1"),
            ("square", "my-app://x?data=%"), ("softpos", "my-app://x?result=%%7B%7D"),
        ] {
            _ = try await expectBadInput(["decode", "--provider", provider, url], mentioning: "percent-escape")
        }
        _ = try await expectBadInput(["decode", SoftPOSCLIFixtures.callback(#"{"result":{"refusalCode":"00"}}"#)])
    }
}

enum SoftPOSCLIFixtures {
    static func callback(_ json: String) -> String {
        "testapp://response?result=" + PercentEncoding.encode(json)
    }
}
