// swift-tools-version: 6.0
// A minimal command-line app on Chappie's public API: sign in, stream a reply, one host tool, a
// saved thread. It depends on the SDK the way an app does (here by path, to build this checkout).
import PackageDescription

let package = Package(
    name: "chappie-quickstart",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "chappie-sdk", path: "../.."),
        // An app outside this repository: .package(url: "https://github.com/b-nnett/chappie-sdk.git", branch: "main"),
    ],
    targets: [
        .executableTarget(
            name: "chappie-quickstart",
            dependencies: [
                .product(name: "ChappieSDK", package: "chappie-sdk"),
                .product(name: "ChappieSDKRuntime", package: "chappie-sdk"),
            ],
            path: "Sources/ChappieQuickstart",
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
