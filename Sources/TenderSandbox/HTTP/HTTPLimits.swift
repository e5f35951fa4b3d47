/// What one connection to the sandbox may send and how long it may take: past these the connection is answered
/// with an error and closed, so a client that sends too much, or too slowly, cannot hold the sandbox.
///
/// | limit | default | past it |
/// |---|---|---|
/// | ``maximumHeadBytes``: request line and headers | 64 KiB | `431 Request Header Fields Too Large` |
/// | ``maximumBodyBytes``: a body's `Content-Length` | 1 MiB | `413 Content Too Large` |
/// | ``idleTimeout``: a kept-alive connection waiting for its next request | 30 s | closed |
/// | ``headTimeout``: from a request's first byte to the end of its headers | 10 s | `408 Request Timeout` |
/// | ``bodyTimeout``: reading a body | 30 s | `408 Request Timeout` |
/// | ``writeTimeout``: a client reading an answer | 30 s | closed |
package struct HTTPLimits: Sendable {
    /// The largest request line plus headers, in bytes.
    package var maximumHeadBytes = 64 * 1024
    /// The largest body, in bytes.
    package var maximumBodyBytes = 1024 * 1024
    /// How long a connection may wait for the first byte of its next request.
    package var idleTimeout: Duration = .seconds(30)
    /// How long a request's head may take to arrive, from its first byte: a client that trickles its headers is cut off.
    package var headTimeout: Duration = .seconds(10)
    /// How long a body may take to arrive.
    package var bodyTimeout: Duration = .seconds(30)
    /// How long an answer may take to be written.
    package var writeTimeout: Duration = .seconds(30)

    /// The sandbox's limits.
    package init() {}
}
