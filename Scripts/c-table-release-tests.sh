#!/usr/bin/env bash
# Runs the C table's tests (Tests/CSyringeTableTests) against the table built
# for release: optimised, SYR_INTERNAL_CHECKS compiled out, as users ship it.
#
#   bash Scripts/c-table-release-tests.sh [scratch folder]
#
# `swift test -c release` in the package itself would compile the whole
# suite and the Syringe module in release first (they need
# -enable-testing, and the Syringe module's whole-module optimisation alone
# takes a minute and a half here), to run 14 files that import only the C
# table. This builds a package of the C table's three targets instead, in a
# scratch folder (default: a new temporary one, removed afterwards), whose
# folders are links to the repository's own: the same sources, headers and
# tests, the same settings.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The table's settings are copied from Package.swift, so a change there must
# be made here too: checked, rather than trusted to memory.
settings='cSettings: [.define("SYR_INTERNAL_CHECKS", .when(configuration: .debug))]'
if ! grep -qF "$settings" "$root/Package.swift"; then
    echo "c-table-release-tests: CSyringeTable's cSettings in Package.swift are no longer" >&2
    echo "  $settings" >&2
    echo "  update the manifest this script writes to match them." >&2
    exit 1
fi

if [ $# -gt 0 ]; then
    work="$1"
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/syringe-ctable.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
package="$work/package"
rm -rf "$package"
mkdir -p "$package/Sources" "$package/Tests"
ln -s "$root/include" "$package/include"
ln -s "$root/Sources/CXXHash" "$package/Sources/CXXHash"
ln -s "$root/Sources/CSyringeTable" "$package/Sources/CSyringeTable"
ln -s "$root/Tests/CSyringeTableTests" "$package/Tests/CSyringeTableTests"
# Package.swift's declarations of the three targets (on Linux, where this
# runs, CXXHash asks pkg-config nothing: see the comment there).
cat >"$package/Package.swift" <<EOF
// swift-tools-version:6.1
// Written by Scripts/c-table-release-tests.sh: Syringe's C table and its tests alone.
import PackageDescription

#if os(Linux)
let xxhashPkgConfig: String? = nil
#else
let xxhashPkgConfig: String? = "libxxhash"
#endif

let package = Package(
    name: "CSyringeTableRelease",
    platforms: [.macOS(.v15)],
    targets: [
        .systemLibrary(name: "CXXHash", pkgConfig: xxhashPkgConfig),
        .target(
            name: "CSyringeTable",
            dependencies: ["CXXHash"],
            path: ".",
            sources: ["Sources/CSyringeTable"],
            publicHeadersPath: "include",
            $settings
        ),
        .testTarget(name: "CSyringeTableTests", dependencies: ["CSyringeTable"]),
    ],
    swiftLanguageModes: [.v6]
)
EOF

# -Onone: what is tested is the C table built for release; the Swift test
# code's optimisation tests nothing more.
swift test -c release -Xswiftc -Onone --package-path "$package" --scratch-path "$work/build"
