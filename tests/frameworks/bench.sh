#!/usr/bin/env bash
# make bench's framework rows: each adapter's bench (tests/frameworks/NAME/bench.py or
# bench.mjs) in its framework's environment. Each prints tab-separated rows
# `framework NAME row median_us ratio_to_baseline`, its rows measured in turns in one run.
# FRAMEWORKS="a b" runs only those.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
env_sh=$root/examples/frameworks/env.sh
names=${FRAMEWORKS:-$(cd "$here" && for d in */; do d=${d%/}; [ -e "$d/bench.py" ] || [ -e "$d/bench.mjs" ] && echo "$d"; done)}
status=0
printf 'framework\tname\trow\tmedian_us\tratio\n'
for name in $names; do
	if [ -f "$here/$name/bench.py" ]; then
		"$env_sh" "$name" python "$here/$name/bench.py" || status=1
	elif [ -f "$here/$name/bench.mjs" ]; then
		(cd "$here" && "$env_sh" "$name" node "$name/bench.mjs") || status=1
	fi
done
exit $status
