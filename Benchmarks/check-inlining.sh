#!/usr/bin/env bash
# Checks that every `try await r.resolve()` of an async factory is inlined
# into the factory, for CI, after the benchmarks' release build (which
# check-allocations.sh makes; this script builds it if it is missing).
#
# Swift inlines an `@inline(__always)` function into a caller that already
# has 64 or more basic blocks (a factory that has inlined one resolve) only
# if the function has at most 64 itself; the async engine's resolve path,
# inlined whole, has about 56 (see `Container.resolveAsyncFromFactory`). A
# change that takes it over the limit leaves a factory's second resolve as
# a call, with a task frame of its own, about 100 instructions more per
# resolve, and nothing else would notice. This compiles
# InliningCheck/Factories.swift (factories resolving two and four
# registrations) against the release build of Syringe with
# `swiftc -emit-sil -O` and fails if a specialisation of
# `Resolver.resolve(type:name:)` was left as a function of its own.
#
#   exit 0   every resolve inlined
#   exit 1   one was not (or the build failed)
#
# Usable from any directory: `bash Benchmarks/check-inlining.sh`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bin="$(swift build -c release --package-path "$here" --show-bin-path)"
if [[ ! -f "$bin/Modules/Syringe.swiftmodule" ]]; then
    swift build -c release --package-path "$here" --target Syringe >&2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

swiftc -O -emit-sil -parse-as-library -module-name InliningCheck \
    -I "$bin/Modules" \
    -Xcc -fmodule-map-file="$bin/CSyringeTable.build/module.modulemap" -Xcc -I"$root/include" \
    -I "$root/Sources/CXXHash" \
    "$here/InliningCheck/Factories.swift" -o "$work/Factories.sil"

# The factories' closures are there (the probe compiled what it should).
closures="$(grep -c '^sil private @\$s13InliningCheck9factories' "$work/Factories.sil" || true)"
if (( closures < 2 )); then
    echo "check-inlining: the probe's factories are missing from the SIL ($closures closures)" >&2
    exit 1
fi
outlined="$(grep '^sil .*@\$s7Syringe8ResolverV7resolve4type4namexxm_SSSgtYa' "$work/Factories.sil" || true)"
if [[ -n "$outlined" ]]; then
    echo "check-inlining: a factory's resolve was not inlined into it:" >&2
    echo "$outlined" | cut -c1-200 >&2
    echo "(the inlined resolve path has more than 64 basic blocks: see Container.resolveAsyncFromFactory)" >&2
    exit 1
fi
echo "check-inlining: every resolve of the probe's factories (two and four each) is inlined"
