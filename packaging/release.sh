#!/usr/bin/env bash
# Packs what `make release-snapshot` built into dist/: archives of the command per platform,
# .deb and .rpm packages (nfpm) with the command, the library, headers and hookexec.pc, the
# npm packages (@hookexec/node and one per platform, esbuild-style), a Homebrew formula,
# and checksums.txt over all of it. The wheels and the sdist are already in dist/python.
set -euo pipefail
dist=$1 cross=$2 nfpm=$3
version=$(cat VERSION)
major=${version%%.*}
repo=$PWD
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rm -rf "$dist/archives" "$dist/packages" "$dist/npm" "$dist/homebrew" "$dist/checksums.txt"
mkdir -p "$dist/archives" "$dist/packages" "$dist/npm" "$dist/homebrew"

# Archives: hookexec_<version>_<os>_<arch>.tar.gz (zip for Windows), the command with the
# licence and the README.
for platform in linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64; do
	os=${platform%-*} arch=${platform#*-}
	name=hookexec_${version}_${os}_${arch}
	mkdir -p "$stage/$name"
	exe=hookexec
	[ "$os" = windows ] && exe=hookexec.exe
	cp "$cross/cli/$platform/hookexec" "$stage/$name/$exe"
	chmod 755 "$stage/$name/$exe"
	cp LICENSE README.md CHANGELOG.md "$stage/$name/"
	if [ "$os" = windows ]; then
		(cd "$stage" && "$repo/build/tools/venv/bin/python" -m zipfile -c "$repo/$dist/archives/$name.zip" "$name")
	else
		tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$dist/archives/$name.tar.gz" "$name"
	fi
done

# .deb and .rpm for amd64 and arm64: nfpm reads packaging/nfpm.yaml, its paths from the
# environment (Debian's multiarch library directory; /usr/lib64 for RPM).
for arch in amd64 arm64; do
	case $arch in amd64) triplet=x86_64-linux-gnu rpmarch=x86_64 ;; arm64) triplet=aarch64-linux-gnu rpmarch=aarch64 ;; esac
	for packager in deb rpm; do
		libdir=/usr/lib/$triplet
		[ $packager = rpm ] && libdir=/usr/lib64
		pc=$stage/pc-$arch-$packager/hookexec.pc
		mkdir -p "$(dirname "$pc")"
		printf '%s\n' 'prefix=/usr' "libdir=$libdir" 'includedir=/usr/include' '' \
			'Name: hookexec' 'Description: Hook engine for AI agents: runs the hooks users attach to lifecycle events' \
			'URL: https://github.com/hookexec/hookexec' "Version: $version" \
			'Libs: -L${libdir} -lhookexec' 'Libs.private: -pthread' 'Cflags: -I${includedir}' >"$pc"
		VERSION=$version MAJOR=$major ARCH=$arch LIBDIR=$libdir PC=$pc \
			CLI=$repo/$cross/cli/linux-$arch/hookexec LIB=$repo/$cross/linux-$arch-gnu/libhookexec.so \
			"$nfpm" package --config packaging/nfpm.yaml --packager $packager --target "$dist/packages/" >/dev/null
	done
done

# npm: one package per platform carrying bin/hookexec(.exe), and @hookexec/node with those
# as optionalDependencies at this version (npm installs the one matching os/cpu).
npm_platforms="linux-x64:linux-amd64 linux-arm64:linux-arm64 darwin-x64:darwin-amd64 darwin-arm64:darwin-arm64 win32-x64:windows-amd64"
optional=""
for pair in $npm_platforms; do
	npmplat=${pair%%:*} goplat=${pair#*:}
	os=${npmplat%-*} cpu=${npmplat#*-}
	dir=$stage/npm/$npmplat
	mkdir -p "$dir/bin"
	exe=hookexec
	[ "$os" = win32 ] && exe=hookexec.exe
	cp "$cross/cli/$goplat/hookexec" "$dir/bin/$exe"
	chmod 755 "$dir/bin/$exe"
	cp LICENSE "$dir/"
	cat >"$dir/package.json" <<JSON
{
  "name": "@hookexec/$npmplat",
  "version": "$version",
  "description": "The hookexec binary for $os $cpu (installed by @hookexec/node)",
  "license": "MIT",
  "repository": { "type": "git", "url": "git+https://github.com/hookexec/hookexec.git" },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin", "LICENSE"],
  "preferUnplugged": true
}
JSON
	printf '# @hookexec/%s\n\nThe `hookexec` binary for %s %s. Installed by `@hookexec/node`; not meant to be used directly.\n' "$npmplat" "$os" "$cpu" >"$dir/README.md"
	(cd "$dir" && npm pack --silent --pack-destination "$repo/$dist/npm" >/dev/null)
	optional="$optional\"@hookexec/$npmplat\": \"$version\", "
done
node_pkg=$stage/npm/node
mkdir -p "$node_pkg"
cp -r npm/node/dist npm/node/esm npm/node/README.md npm/node/package.json "$node_pkg/"
rm -rf "$node_pkg/dist/esm"
cp LICENSE "$node_pkg/"
node -e '
const fs = require("fs");
const file = process.argv[1];
const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
pkg.optionalDependencies = JSON.parse("{" + process.argv[2].replace(/, $/, "") + "}");
delete pkg.devDependencies;
delete pkg.scripts;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' "$node_pkg/package.json" "$optional"
(cd "$node_pkg" && npm pack --silent --pack-destination "$repo/$dist/npm" >/dev/null)

# Homebrew: a formula installing the command from the release archives.
sha() { sha256sum "$1" | cut -d' ' -f1; }
url=https://github.com/hookexec/hookexec/releases/download/v$version
cat >"$dist/homebrew/hookexec.rb" <<RUBY
# Homebrew formula for hookexec $version (made by make release-snapshot; goes in the tap).
class Hookexec < Formula
  desc "Hook engine for AI coding agents: runs the hooks users attach to lifecycle events"
  homepage "https://github.com/hookexec/hookexec"
  version "$version"
  license "MIT"

  on_macos do
    on_arm do
      url "$url/hookexec_${version}_darwin_arm64.tar.gz"
      sha256 "$(sha "$dist/archives/hookexec_${version}_darwin_arm64.tar.gz")"
    end
    on_intel do
      url "$url/hookexec_${version}_darwin_amd64.tar.gz"
      sha256 "$(sha "$dist/archives/hookexec_${version}_darwin_amd64.tar.gz")"
    end
  end

  on_linux do
    on_arm do
      url "$url/hookexec_${version}_linux_arm64.tar.gz"
      sha256 "$(sha "$dist/archives/hookexec_${version}_linux_arm64.tar.gz")"
    end
    on_intel do
      url "$url/hookexec_${version}_linux_amd64.tar.gz"
      sha256 "$(sha "$dist/archives/hookexec_${version}_linux_amd64.tar.gz")"
    end
  end

  def install
    bin.install "hookexec"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/hookexec --version")
  end
end
RUBY

(cd "$dist" && find archives packages npm homebrew python -type f | sort | xargs sha256sum >checksums.txt)
echo "release-snapshot: $(wc -l <"$dist/checksums.txt") files in $dist/ (checksums.txt lists them):"
sed 's/^[0-9a-f]*  /  /' "$dist/checksums.txt"
