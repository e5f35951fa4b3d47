/// What a provider answered when asked for one record by its ID: the record, or that it has none.
///
/// `notFound` is the provider's own word, in its own error shape (Square's `NOT_FOUND` error, SumUp's
/// `NOT_FOUND` error code): an answer of any other shape is a failure of the request, never a `notFound`.
package enum ProviderLookup<Record: Sendable & Hashable>: Sendable, Hashable {
    /// The provider has the record.
    case found(Record)
    /// The provider said it has no such record.
    case notFound

    /// The record, when found.
    package var record: Record? {
        guard case .found(let record) = self else { return nil }
        return record
    }
}
