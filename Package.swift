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
        // Sign-in, credentials, the client and its transports: everything but SwiftUI, so it
        // builds where SwiftUI does not exist. Not a product of its own: apps get it through
        // `ChappieSDK`, which re-exports it.
        .target(
            name: "ChappieCore",
            // The Linux HTTP transport drives the system libcurl, loaded at run time (DESIGN §4).
            dependencies: [.target(name: "CChappieCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: settings
        ),
        // Non-variadic wrappers around the system libcurl (dlopen'ed; no curl header or library at build time).
        .target(name: "CChappieCurl"),
        .target(name: "ChappieSDKRuntime", dependencies: ["ChappieSDK"], swiftSettings: settings),
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
        .testTarget(
            name: "ChappieSDKTests",
            dependencies: ["ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting", "ChappieEmulator"],
            swiftSettings: settings
        ),
        // Fixtures: thread files as earlier SDK versions wrote them (format migration tests).
        .testTarget(name: "ChappieSDKRuntimeTests", dependencies: ["ChappieCore", "ChappieSDKRuntime", "ChappieSDKTesting", "ChappieSDK", "ChappieEmulator"],
                    resources: [.copy("Fixtures")], swiftSettings: settings),
        .testTarget(
            name: "ChappieSDKTestingTests",
            dependencies: ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting"],
            swiftSettings: settings
        ),
        .testTarget(name: "ChappieCLITests", dependencies: ["chappie", "ChappieCore", "ChappieSDK", "ChappieSDKRuntime", "ChappieEmulator"], swiftSettings: settings),
        .testTarget(name: "ChappieEmulatorTests", dependencies: ["ChappieEmulator"], swiftSettings: settings),
        // Every Swift sample of the published documentation, run against the emulator (public API only).
        .testTarget(name: "DocsSampleTests", dependencies: ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting"], exclude: ["README.md"],
                    swiftSettings: settings),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["ChappieCore", "ChappieEmulator", "ChappieSDK", "ChappieSDKTesting"],
            resources: [.copy("Clients")],
            swiftSettings: settings
        ),
    ]
)
