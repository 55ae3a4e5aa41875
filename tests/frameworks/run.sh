#!/usr/bin/env bash
# make test-frameworks: every framework adapter's tests against the real framework at its
# pinned version (examples/frameworks/NAME/requirements.txt or package.json + lockfile),
# with the fake model API (build/fakeapi) on 127.0.0.1. FRAMEWORKS="a b" runs only those.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
env_sh=$root/examples/frameworks/env.sh
names=${FRAMEWORKS:-$(cd "$here" && for d in */; do d=${d%/}; [ -d "$root/examples/frameworks/$d" ] && echo "$d"; done)}
status=0
for name in $names; do
	start=$(date +%s)
	if [ -f "$root/examples/frameworks/$name/requirements.txt" ]; then
		(cd "$here" && HOOKEXEC_FRAMEWORK_EXTRA="pytest==8.4.2" "$env_sh" "$name" python -m pytest -q -p no:cacheprovider "$name") || status=1
	elif [ -f "$root/examples/frameworks/$name/package.json" ]; then
		(cd "$here" && "$env_sh" "$name" node --test "$name/") || status=1
	else
		echo "test-frameworks: $name has neither requirements.txt nor package.json in examples/frameworks/$name" >&2
		status=1
	fi
	echo "test-frameworks: $name: $(( $(date +%s) - start )) s"
done
exit $status
