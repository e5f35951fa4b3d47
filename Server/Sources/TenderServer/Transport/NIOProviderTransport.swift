import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
public import TenderProviderAPI

/// The server's `ProviderTransport`: `TenderProviderAPI`'s clients (Square's, SumUp's) send through
/// AsyncHTTPClient, so that a request waiting for a provider waits on SwiftNIO's event loops, which sleep in
/// `epoll` until something arrives. URLSession's FoundationNetworking on Linux spins a core while a new connection
/// waits for a silent server (`docs/PERFORMANCE.md`, "What waiting for a stalled provider costs").
///
/// As every transport must: no redirect is followed (a 3xx is the answer), nothing is cached and no cookie kept;
/// the whole exchange — connection, request, the last byte of the answer — ends by its deadline, whatever the
/// server sends meanwhile; an answer larger than the limit is refused as soon as it passes it (at once when its
/// `Content-Length` says so). Errors name what failed, never a header.
public final class NIOProviderTransport: ProviderTransport {
    private let client: HTTPClient

    /// A transport with a client of its own on SwiftNIO's shared event loops; ``shutdown()`` it when done.
    public init() {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            decompression: .disabled
        )
        configuration.connectionPool.idleTimeout = .seconds(60)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the client's connections; requests after it fail.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends `request` and gathers its answer within `deadline` and `maximumBytes`.
    /// - Throws: `ProviderTransportError`; `CancellationError`.
    public func send(
        _ request: ProviderTransportRequest,
        maximumBytes: Int,
        deadline: Duration
    ) async throws -> ProviderTransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let client = self.client
        let prepared = outgoing
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        // The client's own deadline ends at the answer's head; the race with a timer bounds the body too.
        return try await withThrowingTaskGroup(of: ProviderTransportResponse.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(prepared, deadline: .now() + .nanoseconds(nanoseconds))
                    if let length = response.headers.first(name: "content-length").flatMap(Int.init),
                        length > maximumBytes
                    {
                        throw ProviderTransportError.tooLarge(limit: maximumBytes)
                    }
                    let body = try await response.body.collect(upTo: maximumBytes)
                    return ProviderTransportResponse(
                        status: Int(response.status.code),
                        headers: response.headers.map { ($0.name, $0.value) },
                        body: Data(body.readableBytesView)
                    )
                } catch {
                    throw Self.failure(error, limit: maximumBytes)
                }
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                throw ProviderTransportError.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ProviderTransportError.timedOut }
            return first
        }
    }

    /// What a failure of the client is, for the provider clients: a time-out, an unreachable host, an answer too
    /// large, a cancellation, or another failure named by its type.
    static func failure(_ error: any Error, limit: Int) -> any Error {
        switch error {
        case is CancellationError, is ProviderTransportError: return error
        case is NIOTooManyBytesError: return ProviderTransportError.tooLarge(limit: limit)
        case let error as HTTPClientError:
            if [.deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout]
                .contains(error) || error == .getConnectionFromPoolTimeout
            {
                return ProviderTransportError.timedOut
            }
            if error == .remoteConnectionClosed { return ProviderTransportError.unreachable("the connection was lost") }
            if error == .cancelled { return CancellationError() }
            return ProviderTransportError.failed("\(error)")
        case is NIOConnectionError: return ProviderTransportError.unreachable("the connection was refused")
        case let error as IOError:
            return ProviderTransportError.unreachable("the connection failed (errno \(error.errnoCode))")
        default:
            return ProviderTransportError.failed(String(describing: type(of: error)))
        }
    }
}
