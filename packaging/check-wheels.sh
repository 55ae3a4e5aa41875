#!/usr/bin/env bash
# The release wheels as PyPI would judge them: one per platform tag, each carrying its
# libhookexec.so for the right machine, and `auditwheel show` agreeing that the library
# needs nothing past the tag's policy (glibc 2.17 for manylinux2014).
set -euo pipefail
python=$1 dir=$2
version=$(cat VERSION)
fail() { echo "check-wheels: $*" >&2; exit 1; }
# wheel platform tag : the library's ELF machine : the policy auditwheel must name
for spec in manylinux_2_17_x86_64.manylinux2014_x86_64:x86-64:manylinux_2_17_x86_64 \
	manylinux_2_17_aarch64.manylinux2014_aarch64:aarch64:manylinux_2_17_aarch64; do
	IFS=: read -r tag machine want <<<"$spec"
	whl=$dir/hookexec-$version-py3-none-$tag.whl
	[ -f "$whl" ] || fail "no $whl"
	tmp=$(mktemp -d)
	"$python" -m zipfile -e "$whl" "$tmp"
	file -b "$tmp/hookexec/libhookexec.so" | grep -Eq "ELF 64-bit LSB shared object, (ARM )?$machine," || fail "$tag: libhookexec.so is $(file -b "$tmp/hookexec/libhookexec.so")"
	rm -rf "$tmp"
	out=$("$python" -m auditwheel show --json "$whl" 2>&1) || fail "auditwheel show $whl: $out"
	got=$("$python" -c 'import json, sys; r = json.load(sys.stdin); print(r["overall_tag"], len(r["external_libs"]))' <<<"$out")
	[ "$got" = "$want 0" ] || fail "auditwheel: $whl is $got (tag, external libraries), want $want 0:"$'\n'"$out"
	echo "check-wheels: $(basename "$whl"): $machine library; auditwheel: consistent with $want"
done
