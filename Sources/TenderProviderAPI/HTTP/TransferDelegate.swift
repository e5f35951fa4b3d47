import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of ``ProviderHTTPClient``'s session: it gathers each answer's body against the request's size
/// limit, refuses every redirect, and ends each transfer exactly once — with its answer, its failure, its deadline
/// or its cancellation, whichever comes first.
///
/// A redirect is refused so that an `Authorization` header never follows one to another host: the answer is the
/// redirect itself.
final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What a transfer has gathered so far, and who waits for it.
    private struct Transfer {
        let maximumBytes: Int
        let continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>
        /// Sleeps until the deadline, then ends the transfer; cancelled when the transfer ends first.
        var deadline: Task<Void, Never>?
        var body = Data()
    }

    private let transfers = Locked<[Int: Transfer]>([:])

    /// Starts `task`, which `continuation` waits for; it fails with ``ProviderHTTPClient/TransportFailure/timedOut``
    /// when its answer is not complete after `deadline`.
    func start(
        _ task: URLSessionDataTask,
        maximumBytes: Int,
        deadline: Duration,
        continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>
    ) {
        let id = task.taskIdentifier
        transfers.withLock { $0[id] = Transfer(maximumBytes: maximumBytes, continuation: continuation) }
        let expiry = Task { [weak self] in
            guard (try? await Task.sleep(for: deadline)) != nil else { return }
            self?.end(task, with: .failure(ProviderHTTPClient.TransportFailure.timedOut))
        }
        transfers.withLock { $0[id]?.deadline = expiry }
        task.resume()
        // Cancelled before it was registered: the cancellation handler found nothing to end.
        if Task.isCancelled { end(task, with: .failure(CancellationError())) }
    }

    /// Ends `task` with `result`, unless it has ended already: its caller has the result at once, and whatever
    /// still arrives for it is dropped. A transfer that fails is cancelled too, off this thread: FoundationNetworking's
    /// `cancel()` waits for the session's queue, which a server that floods it keeps busy.
    func end(_ task: URLSessionTask, with result: Result<(HTTPURLResponse, Data), any Error>) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.deadline?.cancel()
        transfer.continuation.resume(with: result)
        if case .failure = result { DispatchQueue.global().async { task.cancel() } }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let limit = transfers.withLock { $0[dataTask.taskIdentifier]?.maximumBytes }
        if let limit, response.expectedContentLength > Int64(limit) {
            end(dataTask, with: .failure(ProviderHTTPClient.TransportFailure.tooLarge(limit)))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit: Int? = transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            guard transfer.body.count + data.count <= transfer.maximumBytes else { return transfer.maximumBytes }
            transfer.body.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return nil
        }
        if let overLimit { end(dataTask, with: .failure(ProviderHTTPClient.TransportFailure.tooLarge(overLimit))) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            var failure: any Error = ProviderHTTPClient.TransportFailure.unreachable("the connection failed")
            if let error = error as? URLError {
                failure = error.code == .cancelled ? CancellationError() : ProviderHTTPClient.failure(error)
            }
            end(task, with: .failure(failure))
            return
        }
        guard let response = task.response as? HTTPURLResponse else {
            end(task, with: .failure(ProviderHTTPClient.TransportFailure.notHTTP))
            return
        }
        let body = transfers.withLock { $0[task.taskIdentifier]?.body } ?? Data()
        end(task, with: .success((response, body)))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
