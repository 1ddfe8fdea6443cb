// The `ChappieSDK` module: everything an app imports with `import ChappieSDK`. The sign-in
// session, the client, storage and transports live in `ChappieCore`, which builds without
// SwiftUI; this module adds the SwiftUI views (`ChappieSignIn`, `ChappieUsageLimitView`, …) on
// the platforms that have SwiftUI and re-exports the core, so an app needs one import.
@_exported import ChappieCore
