#!/usr/bin/env bash
# Type-check Chappie's library targets (ChappieTransport first, the internal target the others
# import, then ChappieSDK, ChappieSDKRuntime, ChappieEmulator, ChappieSDKTesting) for iOS and macOS on Linux, with the Linux Swift compiler
# (Swift 6.3.1, the one on PATH) and public snapshots of Apple's SDKs (no Xcode, no linking, nothing is run).
#
#   usage: typecheck.sh [SOURCE_TREE] [ios|macos|all]     (default: the current folder, all)
#
# Before the first run, clone the SDK snapshot (a bare or a normal clone both work):
#   git clone --bare https://github.com/itsnebulalol/sdks /path/to/sdks.git
# and pass that path as SDK_MIRROR=PATH, or as `scripts/apple-typecheck --sdk PATH` (needed only
# until the SDKs are extracted into $APPLE_CHECK).
# Work folder: $APPLE_CHECK (default /tmp/apple-check); about 1.5 GB; first run 5-8 min per platform,
# later runs about 1 min per platform. Nothing from the SDK goes into the project.
# Known noise from these Swift 5.9 SDK interfaces (not errors under Xcode 16 / Swift 6): `no macro named
# 'isolation'`, TaskExecutor / executorPreference in BlockingBridge.swift, "reference to captured var
# 'self' in concurrently-executing code" where Swift 6's Task.init takes a `sending` closure.
# `--shimmed` type-checks the copy in which that noise is shimmed away: every diagnostic left is real.
#
# SDKs: github.com/itsnebulalol/sdks @ e9414e087753613edec33b4ff0319ed9d35199ec
#       iPhoneOS17.0.sdk and macOS14.0.sdk (Xcode 15.0, Swift 5.9 interfaces; theos-style trimmed
#       SDKs; the only .tbd files missing from the snapshot are irrelevant to type-checking).
# Everything lives under $APPLE_CHECK (SDKs, resource dir, module caches, outputs);
# full compiler output in $APPLE_CHECK/output-ios.txt and output-macos.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${APPLE_CHECK:-/tmp/apple-check}
SHIMMED=0
if [ "${1:-}" = "--shimmed" ]; then SHIMMED=1; shift; fi
SRC=$(cd "${1:-.}" && pwd)
WHICH=${2:-all}
SWIFTC=$(command -v swiftc)
TOOLCHAIN=$(dirname "$(dirname "$(readlink -f "$SWIFTC")")")   # .../usr
FRONTEND=$TOOLCHAIN/bin/swift-frontend
MIRROR=${SDK_MIRROR:-}
COMMIT=e9414e087753613edec33b4ff0319ed9d35199ec
FEATURES=(-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
          -package-name chappie_sdk)

# --- 1. SDKs (extracted once; blobs missing from the snapshot are skipped) ---------------------
extract_sdk() { # $1 = folder in the repo
    [ -d "$ROOT/$1" ] && return 0
    [ -n "$MIRROR" ] && [ -d "$MIRROR" ] || { echo "pass --sdk PATH (or SDK_MIRROR=PATH): a clone of https://github.com/itsnebulalol/sdks" >&2; exit 2; }
    local gitdir=$MIRROR
    if [ -d "$MIRROR/.git" ]; then gitdir=$MIRROR/.git; fi
    python3 "$HERE/extract.py" "$gitdir" "$COMMIT" "$1" "$ROOT" > "$ROOT/missing-$1.txt"
}
fix_sdk() { # $1 = sdk dir
    # The snapshot flattened a symlink: libxml2/libxml is a second copy of libxml, so clang sees
    # module 'libxml2' defined twice and every Darwin module fails. Make it the symlink it is in Xcode.
    local d="$1/usr/include/libxml2/libxml"
    if [ -d "$d" ] && [ ! -L "$d" ]; then rm -rf "$d" && ln -s ../libxml "$d"; fi
    # Swift 6.3 rejects one os_log call with an interpolated string inside an @inlinable body of
    # SwiftUI's 5.9 interface ("string interpolation cannot be used in this context"). Drop the
    # interpolation in that message only (it is SwiftUI's own body, never Chappie's).
    grep -rl --include='*.swiftinterface' 'Accessing Environment<\\(Value.self)>' "$1" 2>/dev/null |
        while read -r f; do sed -i 's/Accessing Environment<\\(Value\.self)>/Accessing Environment<Value>/' "$f"; done
}

# --- 2. A Darwin resource dir: the toolchain's clang headers and shims, none of its Linux-only
#        module maps (dispatch, os, Block, CoreFoundation), plus the two API notes the Xcode
#        toolchain ships in usr/lib/swift/apinotes (from swiftlang/swift apinotes/, with
#        _os_log_impl and _os_signpost_emit_with_name_impl SwiftPrivate as the 5.9 overlay expects).
make_resource_dir() {
    local r="$ROOT/resource"
    mkdir -p "$r/apinotes"
    cp "$HERE"/apinotes/*.apinotes "$r/apinotes/"
    ln -sfn "$TOOLCHAIN/lib/swift/clang" "$r/clang"
    ln -sfn "$TOOLCHAIN/lib/swift/shims" "$r/shims"
    [ -f "$r/apinotes/Dispatch.apinotes" ] && [ -f "$r/apinotes/os.apinotes" ] ||
        { echo "missing $r/apinotes/{Dispatch,os}.apinotes" >&2; exit 2; }
}

# --- 3. Per platform ----------------------------------------------------------------------------
run_platform() { # $1 = ios|macos
    local plat=$1 sdk target triple swiftui
    if [ "$plat" = ios ]; then
        extract_sdk iPhoneOS17.0.sdk; sdk=$ROOT/iPhoneOS17.0.sdk; target=arm64-apple-ios16.0; triple=arm64-apple-ios
        swiftui=$sdk/System/Library/Frameworks/SwiftUI.framework/Modules/SwiftUI.swiftmodule/arm64-apple-ios.swiftinterface
    else
        extract_sdk macOS14.0.sdk; sdk=$ROOT/macOS14.0.sdk; target=arm64-apple-macos13.0; triple=arm64-apple-macos
        swiftui=$sdk/System/Library/Frameworks/SwiftUI.framework/Versions/A/Modules/SwiftUI.swiftmodule/arm64e-apple-macos.swiftinterface
    fi
    fix_sdk "$sdk"
    local mc=$ROOT/mc-$plat pre=$ROOT/prebuilt/$plat mods=$ROOT/mods/$plat out=$ROOT/output-$plat.txt
    mkdir -p "$pre/SwiftUI.swiftmodule" "$mods"
    local common=(-target "$target" -sdk "$sdk" -resource-dir "$ROOT/resource" -module-cache-path "$mc")

    # SwiftUI's 5.9 interface fails Swift 6.3's stricter availability checks of the SDK itself
    # (ShapeStyle._makeView, _StackLayoutCache). Build that one module with the checks off and put
    # it first on the search path; Chappie's own code is still checked with availability on.
    if [ ! -f "$pre/SwiftUI.swiftmodule/$triple.swiftmodule" ]; then
        "$FRONTEND" -compile-module-from-interface -module-name SwiftUI "$swiftui" \
            -o "$pre/SwiftUI.swiftmodule/$triple.swiftmodule" "${common[@]}" -disable-availability-checking
    fi

    # Dependency modules for the downstream targets: emitted from a copy of the sources with two
    # shims for Swift 6.0 stdlib APIs the 5.9 SDK lacks: `#isolation` -> `nil`, and no TaskExecutor.
    # Non-inlinable bodies are skipped, so an error in ChappieCore does not hide its dependents.
    # The targets themselves are then type-checked from the untouched SOURCE_TREE.
    local shim=$ROOT/shim-src
    rm -rf "$shim"; mkdir -p "$shim"; cp -r "$SRC/Sources" "$shim/"
    grep -rl '#isolation' "$shim/Sources" | xargs -r sed -i 's/= #isolation/= nil/'
    # ... and without the TaskExecutor class (SE-0417, Swift 6.0 stdlib) the emulator's bridge uses.
    python3 - "$shim/Sources/ChappieEmulator/Support/BlockingBridge.swift" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
cut = s.find("@available(macOS 15, iOS 18, *)\nfinal class EmulatorExecutor")
if cut >= 0:
    s = s[:cut]
s = s.replace("Task(executorPreference: EmulatorExecutor.shared)", "Task")
open(p, "w").write(s)
PY
    emit() { # $1 module, deps via -I
        "$SWIFTC" -emit-module -emit-module-path "$mods/$1.swiftmodule" -module-name "$1" "${common[@]}" \
            -I "$pre" -I "$mods" "${FEATURES[@]}" -Xfrontend -experimental-skip-non-inlinable-function-bodies \
            $(find "$shim/Sources/$1" -name '*.swift' | sort) > "$mods/$1.emit.log" 2>&1 ||
            echo "note: could not emit $1 for $plat (see $mods/$1.emit.log)"
    }
    # ChappieTransport first: ChappieCore and ChappieSDKRuntime import it (CChappieCurl, its only
    # C dependency, is Linux-only, so `canImport(CChappieCurl)` is false here and the libcurl
    # loop drops out); then ChappieCore, which ChappieSDK re-exports.
    emit ChappieTransport; emit ChappieCore; emit ChappieSDK; emit ChappieEmulator; emit ChappieSDKRuntime

    : > "$out"
    for t in ChappieTransport ChappieCore ChappieSDK ChappieSDKRuntime ChappieEmulator ChappieSDKTesting; do
        local start=$SECONDS
        echo "=== $t ($target, $(basename "$sdk")) ===" >> "$out"
        local tree=$SRC
        if [ "$SHIMMED" = 1 ]; then tree=$shim; fi
        (cd "$tree" && "$SWIFTC" -typecheck -continue-building-after-errors -module-name "$t" "${common[@]}" \
            -I "$pre" -I "$mods" "${FEATURES[@]}" $(find "Sources/$t" -name '*.swift' | sort)) >> "$out" 2>&1
        echo "=== $t: exit $? in $((SECONDS - start)) s ===" >> "$out"
    done
    echo "--- $plat: summary (file:line: severity: message) ---"
    grep -E '^Sources/' "$out" | grep -E ': (error|warning):' | sort -u
    grep -E '^=== .*exit' "$out"
}

make_resource_dir
case "$WHICH" in
    ios) run_platform ios ;;
    macos) run_platform macos ;;
    *) run_platform ios; run_platform macos ;;
esac
