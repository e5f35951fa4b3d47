import Tender

#if canImport(Security)
import Foundation
import Security

/// Credentials in the Keychain, as a generic password readable after the device's first unlock and never
/// migrated to another device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`) (SEC-11).
///
/// On macOS it uses the data protection keychain, like iOS.
public struct KeychainCredentialStore: SquareCredentialStore {
    /// The Keychain service (`kSecAttrService`).
    public let service: String
    /// The Keychain account (`kSecAttrAccount`): one per seller if your app holds several.
    public let account: String
    /// The Keychain access group to share the item with app extensions, if any.
    public let accessGroup: String?

    /// Creates a store for one Keychain item.
    public init(
        service: String = "dev.tender.square-authorization",
        account: String = "square-authorization",
        accessGroup: String? = nil
    ) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    private var baseQuery: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// Reads the item, or `nil` when there is none.
    public func load() throws -> SquareCredentials? {
        var query = baseQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw failure("read", status) }
        return try SquareCredentials(storageRepresentation: data)
    }

    /// Adds or updates the item.
    public func save(_ credentials: SquareCredentials) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: credentials.storageRepresentation(),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(baseQuery as CFDictionary, attributes as CFDictionary)
        if status == errSecSuccess { return }
        guard status == errSecItemNotFound else { throw failure("update", status) }
        let added = SecItemAdd(baseQuery.merging(attributes) { $1 } as CFDictionary, nil)
        guard added == errSecSuccess else { throw failure("add", added) }
    }

    /// Deletes the item; a missing item is not an error.
    public func delete() throws {
        let status = SecItemDelete(baseQuery as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw failure("delete", status) }
    }

    private func failure(_ action: String, _ status: OSStatus) -> SquareAuthorizationError {
        let reason = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
        return SquareAuthorizationError(
            .credentialStorageFailed,
            "Could not \(action) the Square credentials in the Keychain (service \(service)): \(reason)."
        )
    }
}
#endif
