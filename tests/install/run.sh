#!/usr/bin/env bash
# make install into a temporary prefix, then build and run a C host and the C++ example host
# with nothing but pkg-config's flags (shared and static), then make uninstall and check that
# nothing is left; the same with DESTDIR staging, as packagers use it.
set -euo pipefail
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
CC=${CC:-cc}
CXX=${CXX:-c++}
version=$(cat VERSION)
major=${version%%.*}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "test-install: $*" >&2; exit 1; }

prefix=$root/prefix
$MAKE -s install PREFIX="$prefix" >/dev/null
want="include/hookexec.h
include/hookexec.hpp
lib/libhookexec.a
lib/libhookexec.so
lib/libhookexec.so.$major
lib/libhookexec.so.$version
lib/pkgconfig/hookexec.pc"
got=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
[ "$got" = "$want" ] || fail "installed files:"$'\n'"$got"$'\n'"want:"$'\n'"$want"
[ "$(readlink "$prefix/lib/libhookexec.so")" = "libhookexec.so.$major" ] || fail "libhookexec.so link"
[ "$(readlink "$prefix/lib/libhookexec.so.$major")" = "libhookexec.so.$version" ] || fail "SONAME link"
readelf -d "$prefix/lib/libhookexec.so.$version" | grep "SONAME.*\[libhookexec.so.$major\]" >/dev/null || fail "no SONAME libhookexec.so.$major"
readelf --dyn-syms -W "$prefix/lib/libhookexec.so.$version" | grep " hookexec_open@@HOOKEXEC_$major\$" >/dev/null || fail "hookexec_open is not in version node HOOKEXEC_$major"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion hookexec)" = "$version" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046 # pkg-config's flags are words
$CC -std=c11 -Wall -Wextra -Werror -o "$root/host" tests/install/host.c $(pkg-config --cflags --libs hookexec)
[ "$(LD_LIBRARY_PATH=$prefix/lib "$root/host" "$root")" = "hookexec $version: blocked" ] || fail "C host"
readelf -d "$root/host" | grep "NEEDED.*\[libhookexec.so.$major\]" >/dev/null || fail "the host does not need libhookexec.so.$major"
# shellcheck disable=SC2046
$CXX -std=c++17 -Wall -Wextra -Werror -o "$root/cpp_host" examples/cpp_host/main.cpp $(pkg-config --cflags --libs hookexec)
LD_LIBRARY_PATH=$prefix/lib "$root/cpp_host" >/dev/null || fail "C++ host"
# The static library: one file, no libhookexec.so needed at run time.
# shellcheck disable=SC2046
$CC -std=c11 -o "$root/host-static" tests/install/host.c $(pkg-config --cflags hookexec) \
	-L"$prefix/lib" -Wl,-Bstatic -lhookexec -Wl,-Bdynamic $(pkg-config --static --libs-only-other hookexec)
! readelf -d "$root/host-static" | grep -q "libhookexec" || fail "the static host still needs libhookexec.so"
[ "$("$root/host-static" "$root")" = "hookexec $version: blocked" ] || fail "static C host"

$MAKE -s uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" \( -type f -o -type l \))
[ -z "$left" ] || fail "left after uninstall: $left"

stage=$root/stage
$MAKE -s install DESTDIR="$stage" PREFIX=/usr >/dev/null
[ -f "$stage/usr/lib/libhookexec.so.$version" ] || fail "DESTDIR install"
grep -qx 'prefix=/usr' "$stage/usr/lib/pkgconfig/hookexec.pc" || fail "the .pc file names DESTDIR"
$MAKE -s uninstall DESTDIR="$stage" PREFIX=/usr >/dev/null
left=$(find "$stage" \( -type f -o -type l \))
[ -z "$left" ] || fail "left after DESTDIR uninstall: $left"
echo "test-install: ok (shared, static, C++, DESTDIR)"
