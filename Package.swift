// swift-tools-version: 6.0
// Chappie: sign in to ChatGPT with the device-code flow and talk to the Codex backend from Swift.
// Depends on nothing outside the toolchain (DESIGN §1).
import PackageDescription

/// Settings shared by every target: Swift 6 mode with strict concurrency, plus the upcoming
/// features chosen once for the whole package (STYLE §3).
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "chappie-sdk",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "ChappieSDK", targets: ["ChappieSDK"]),
        .library(name: "ChappieSDKRuntime", targets: ["ChappieSDKRuntime"]),
        .library(name: "ChappieSDKTesting", targets: ["ChappieSDKTesting"]),
        .library(name: "ChappieEmulator", targets: ["ChappieEmulator"]),
        .executable(name: "chappie", targets: ["chappie"]),
        .executable(name: "chappie-bench", targets: ["chappie-bench"]),
    ],
    targets: [
        // What `import ChappieSDK` gives an app: the core, re-exported, and the SwiftUI views
        // (sign-in button, onboarding sheet, usage-limit view) where SwiftUI exists.
        .target(
            name: "ChappieSDK",
            dependencies: ["ChappieCore"],
            // Apple's privacy manifest (no tracking; user id and email for app functionality).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: settings
        ),
        // Sign-in, credentials, the client and the conversation engine: everything but SwiftUI,
        // so it builds where SwiftUI does not exist. Not a product of its own: apps get it
        // through `ChappieSDK`, which re-exports it.
        .target(name: "ChappieCore", dependencies: ["ChappieTransport"], swiftSettings: settings),
        // The SDK's own network plumbing, below the transport seam: the libcurl loop of the Linux
        // HTTP transport, the RFC 6455 WebSocket client (sockets, TLS, frames, permessage-deflate)
        // and the loaders of the system libraries they dlopen (OpenSSL, zlib, zstd). A target of
        // its own so this code, which touches C, sockets and threads, builds and is tested apart
        // from the SDK's logic, and the SDK reaches it only through the seam types it exports with
        // `package` access. Not a product: nothing in it is public, and apps never import it.
        .target(
            name: "ChappieTransport",
            // The Linux HTTP transport drives the system libcurl, loaded at run time (DESIGN §4).
            dependencies: [.target(name: "CChappieCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: settings
        ),
        // Non-variadic wrappers around the system libcurl (dlopen'ed; no curl header or library at build time).
        .target(name: "CChappieCurl"),
        // ChappieTransport for the SDK's shared `package` helpers (LockedBox, Redaction).
        .target(name: "ChappieSDKRuntime", dependencies: ["ChappieSDK", "ChappieTransport"], swiftSettings: settings),
        .target(
            name: "ChappieSDKTesting",
            dependencies: ["ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieEmulator"],
            swiftSettings: settings
        ),
        .target(name: "ChappieEmulator", swiftSettings: settings),
        .executableTarget(
            name: "chappie",
            dependencies: ["ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieEmulator"],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "chappie-bench",
            dependencies: ["ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieEmulator"],
            swiftSettings: settings
        ),
        // Test support shared by the test targets, never shipped: TestProcess (the one runner of
        // child processes in the tests) and HeldHandler. Foundation only, no SDK code.
        .target(name: "ChappieTestSupport", path: "Tests/ChappieTestSupport", swiftSettings: settings),
        .testTarget(name: "ChappieTestSupportTests", dependencies: ["ChappieTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "ChappieSDKTests",
            // ChappieTransport: the unit tests of the transport internals (RFC 6455, libcurl, loaders).
            dependencies: ["ChappieCore", "ChappieSDK", "ChappieTransport", "ChappieSDKRuntime", "ChappieSDKTesting",
                           "ChappieEmulator", "ChappieTestSupport"],
            swiftSettings: settings
        ),
        // Fixtures: thread files as earlier SDK versions wrote them (format migration tests).
        .testTarget(name: "ChappieSDKRuntimeTests", dependencies: ["ChappieCore", "ChappieSDKRuntime", "ChappieSDKTesting", "ChappieSDK", "ChappieEmulator", "ChappieTestSupport"],
                    resources: [.copy("Fixtures")], swiftSettings: settings),
        .testTarget(
            name: "ChappieSDKTestingTests",
            dependencies: ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting"],
            swiftSettings: settings
        ),
        .testTarget(name: "ChappieCLITests", dependencies: ["chappie", "ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieEmulator", "ChappieTestSupport"], swiftSettings: settings),
        // The transport internals on their own: RFC 6455 (frames, handshake, deflate, hostile
        // servers, the emulator's socket), HTTPFields, FIFOQueue.
        .testTarget(name: "ChappieTransportTests", dependencies: ["ChappieTransport", "ChappieEmulator"], swiftSettings: settings),
        .testTarget(name: "ChappieEmulatorTests", dependencies: ["ChappieEmulator", "ChappieTestSupport"], swiftSettings: settings),
        // Every Swift sample of the published documentation, run against the emulator (public API only).
        .testTarget(name: "DocsSampleTests", dependencies: ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting", "ChappieTestSupport"], exclude: ["README.md"],
                    swiftSettings: settings),
        .testTarget(
            name: "ConformanceTests",
            // ChappieTransport: the RFC 6455 client against other implementations.
            dependencies: ["ChappieCore", "ChappieEmulator", "ChappieSDK", "ChappieTransport", "ChappieSDKTesting", "ChappieTestSupport"],
            resources: [.copy("Clients")],
            swiftSettings: settings
        ),
    ]
)
