#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `SecretSchema` (libsecret `secret-schema.h`) laid out by hand in Swift memory.
///
/// ```c
/// typedef struct { const gchar *name; SecretSchemaAttributeType type; } SecretSchemaAttribute;
/// typedef struct {
///     const gchar *name; SecretSchemaFlags flags; SecretSchemaAttribute attributes[32];
///     gint reserved; gpointer reserved1; … gpointer reserved7;
/// } SecretSchema;
/// ```
/// Enums are C `int`s. On LP64 this is 592 bytes: `flags` at 8, `attributes` at 16 with a
/// 16-byte stride (`type` at +8), `reserved` at 528, `reserved1` at 536 (checked with `offsetof`
/// against libsecret 0.20.5's header). The layout is computed from the platform's pointer size, so
/// the same rules hold on 32-bit targets.
struct SecretSchemaLayout: Sendable {
    /// The schema name, stored by libsecret as the `xdg:schema` attribute.
    let name: String
    /// Attribute names, all of type `SECRET_SCHEMA_ATTRIBUTE_STRING` (0); at most 32.
    let attributeNames: [String]

    static let pointerSize = MemoryLayout<UnsafeRawPointer>.size
    static let pointerAlignment = MemoryLayout<UnsafeRawPointer>.alignment
    static let intSize = MemoryLayout<Int32>.size
    /// Offset of `flags`.
    static let flagsOffset = pointerSize
    /// Size of one `SecretSchemaAttribute`.
    static let attributeStride = align(pointerSize + intSize, to: pointerAlignment)
    /// Offset of `attributes[0]`.
    static let attributesOffset = align(flagsOffset + intSize, to: pointerAlignment)
    /// Offset of `attributes[i].type` within one attribute.
    static let attributeTypeOffset = pointerSize
    /// Offset of `reserved`.
    static let reservedOffset = attributesOffset + 32 * attributeStride
    /// Offset of `reserved1`.
    static let firstReservedPointerOffset = align(reservedOffset + intSize, to: pointerAlignment)
    /// `sizeof(SecretSchema)`.
    static let size = firstReservedPointerOffset + 7 * pointerSize

    /// Rounds `value` up to a multiple of `alignment`.
    static func align(_ value: Int, to alignment: Int) -> Int {
        (value + alignment - 1) / alignment * alignment
    }

    /// Runs `body` with a zeroed `SecretSchema` filled in (flags `SECRET_SCHEMA_NONE`), freed afterwards.
    func withSchema<Result>(_ body: (UnsafeRawPointer) throws(ChappieCredentialStoreError) -> Result) throws(ChappieCredentialStoreError) -> Result {
        precondition(attributeNames.count < 32, "a SecretSchema holds at most 32 attributes")
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Self.size, alignment: Self.pointerAlignment)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.size)
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer {
            strings.forEach { free($0) }
            memory.deallocate()
        }
        guard let schemaName = strdup(name) else { throw .unavailable("out of memory") }
        strings.append(schemaName)
        memory.storeBytes(of: UnsafePointer(schemaName), toByteOffset: 0, as: UnsafePointer<CChar>?.self)
        memory.storeBytes(of: 0, toByteOffset: Self.flagsOffset, as: Int32.self)
        for (index, attribute) in attributeNames.enumerated() {
            guard let attributeName = strdup(attribute) else { throw .unavailable("out of memory") }
            strings.append(attributeName)
            let offset = Self.attributesOffset + index * Self.attributeStride
            memory.storeBytes(of: UnsafePointer(attributeName), toByteOffset: offset, as: UnsafePointer<CChar>?.self)
            memory.storeBytes(of: 0, toByteOffset: offset + Self.attributeTypeOffset, as: Int32.self)
        }
        return try body(UnsafeRawPointer(memory))
    }
}
#endif
