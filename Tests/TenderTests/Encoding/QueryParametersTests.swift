import Testing

@testable import Tender

@Suite("Query parameters")
struct QueryParametersTests {
    @Test("items keep their order, decode strictly, and + stays + (square §2.2)")
    func basics() throws {
        let query = try QueryParameters(urlString: "my-app://cb?b=2&a=x+y%20z&flag&empty=#frag")
        #expect(query.map(\.name) == ["b", "a", "flag", "empty"])
        #expect(try query.value(named: "a") == "x+y z")
        #expect(try query.value(named: "flag") == nil)
        #expect(query.contains("flag"))
        #expect(try query.value(named: "empty") == "")
        #expect(try query.value(named: "missing") == nil)
        #expect(!query.contains("frag"))
    }

    @Test("a duplicated parameter is told apart (SEC-6)")
    func duplicates() throws {
        let query = try QueryParameters(percentEncodedQuery: "data=1&x=0&data=2")
        #expect(query.count(of: "data") == 2)
        #expect(query.values(named: "data") == ["1", "2"])
        let error = #expect(throws: QueryError.self) { try query.value(named: "data") }
        #expect(error?.code == .duplicateParameter)
        #expect(try query.value(named: "x") == "0")
    }

    @Test("a combining mark after & or = does not hide the delimiter")
    func combiningMarks() throws {
        let query = try QueryParameters(percentEncodedQuery: "a=1&\u{301}b=2&c=\u{301}3")
        #expect(query.map(\.name) == ["a", "\u{301}b", "c"])
        #expect(try query.value(named: "c") == "\u{301}3")
    }

    @Test("empty segments are skipped; an invalid escape anywhere fails the whole query")
    func segments() throws {
        #expect(try QueryParameters(percentEncodedQuery: "&&a=1&&").count == 1)
        #expect(throws: QueryError.self) { try QueryParameters(percentEncodedQuery: "a=1&b=%ZZ") }
        #expect(throws: QueryError.self) { try QueryParameters(percentEncodedQuery: "%FF=1") }
    }

    @Test("an invalid escape's error names its parameter, never its value, and masks a card number in the name")
    func errorNamesTheParameter() throws {
        func message(_ query: String) -> String? {
            (#expect(throws: QueryError.self) { try QueryParameters(percentEncodedQuery: query) })?.message
        }
        let value = message("a=1&smp-status=ab%ZZcd")
        #expect(value?.hasPrefix("In the value of 'smp-status': ") == true)
        #expect(value?.contains("offset 2") == true)
        #expect(value?.contains("abcd") == false)
        #expect(message("a=1&b%2=x")?.hasPrefix("In the name of parameter 2: ") == true)
        #expect(message("a=1&b=%FF")?.contains("'b'") == true)
        let masked = try #require(message("4111111111111111=%ZZ"))
        #expect(!CardNumberScreen.containsCardNumber(masked))
    }

    @Test("building a query encodes every name and value with the unreserved set")
    func building() {
        var query: QueryParameters = ["amount": "10.00", "email": "jane+x@example.com"]
        query.append(name: "flag", value: nil)
        #expect(query.percentEncodedQuery == "amount=10.00&email=jane%2Bx%40example.com&flag")
    }
}

@Suite("URL splitting")
struct URLPartsTests {
    @Test("splits scheme, authority, path, query and fragment without normalising")
    func split() throws {
        let parts = try URLParts("my-app://user@host:8080/a/b?x=%ZZ&y#frag?x")
        #expect(parts.scheme == "my-app")
        #expect(parts.authority == "user@host:8080")
        #expect(parts.host == "host")
        #expect(parts.path == "/a/b")
        #expect(parts.query == "x=%ZZ&y")
        #expect(parts.fragment == "frag?x")
        #expect(parts.endpoint == "my-app://user@host:8080/a/b")
        #expect(parts.string == "my-app://user@host:8080/a/b?x=%ZZ&y#frag?x")
    }

    @Test("opaque URLs have no authority; an empty authority is empty, not missing")
    func authorityForms() throws {
        #expect(try URLParts("my-app:callback").authority == nil)
        #expect(try URLParts("my-app://").authority == "")
        #expect(try URLParts("my-app://?a=1").host == "")
        #expect(try URLParts("http://[::1]:80/x").host == "[::1]")
    }

    @Test(
        "a URL without a valid scheme is refused",
        arguments: ["//myCallback", "perform-callback", "1ab://x", ":x", "a b://c"]
    )
    func noScheme(text: String) {
        let error = #expect(throws: QueryError.self) { try URLParts(text) }
        #expect(error?.code == .invalidURL)
    }

    @Test("appending to a query adds & only when there is one")
    func appendQuery() throws {
        var parts = try URLParts("a://b/c")
        parts.appendQuery("x=1")
        parts.appendQuery("y=2")
        #expect(parts.string == "a://b/c?x=1&y=2")
    }
}
