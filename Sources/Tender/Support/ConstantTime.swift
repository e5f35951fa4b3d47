/// Compares two strings in time that depends only on their lengths, for one-time values such as OAuth
/// `state`, so that a forged value cannot be guessed byte by byte from response times.
package func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
}
