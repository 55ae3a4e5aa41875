#!/usr/bin/env bash
# make test-latest: every live suite against its agent's newest release on npm (the "latest"
# tag) instead of its pin in tests/live/versions.json, and a drift report in
# build/live-latest/report.md: per agent the pinned and newest versions, how many vectors
# still agree, the payload fields the new release sends differently, and every vector that
# differs with its reasons. The full logs are beside it (<agent>.log). It exits 1 when any
# agent drifted or its suite could not run, so a scheduled job can flag a release; the pins
# move only by editing versions.json.
#
#   LATEST_AGENTS="claude codex"  the suites to run (default: every live suite)
#   LATEST_OUT=DIR                where the report and logs go (default: build/live-latest)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
go=${GO:-go}
out=${LATEST_OUT:-build/live-latest}
mkdir -p "$out"
out=$(cd "$out" && pwd)
agents=${LATEST_AGENTS:-}
if [ -z "$agents" ]; then
	for f in tests/live/*/live_test.go; do
		grep -q 'suite.Agent{' "$f" && agents="$agents $(basename "$(dirname "$f")")"
	done
fi

pinned() { # the pinned version of an npm package
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "?"))' tests/live/versions.json "$1"
}

rows=$(mktemp) details=$(mktemp)
trap 'rm -f "$rows" "$details"' EXIT
status=0
for a in $agents; do
	pkg=$(sed -n 's/.*Package: *"\([^"]*\)".*/\1/p' "tests/live/$a/live_test.go" | head -n1)
	gate=$(sed -n 's/.*Gate: *"\([^"]*\)".*/\1/p' "tests/live/$a/live_test.go" | head -n1)
	log=$out/$a.log
	echo "test-latest: $a ($pkg) ..." >&2
	start=$SECONDS
	if ! "$go" test -c -o "build/live-$a.test" "./tests/live/$a" >"$log" 2>&1; then
		echo "| $a | $(pinned "$pkg") | ? | — | — | the suite did not build ($a.log) |" >>"$rows"
		status=1
		continue
	fi
	(cd "tests/live/$a" && env "$gate=1" HOOKEXEC_LIVE_LATEST=1 "$root/build/live-$a.test" -test.count=1) >>"$log" 2>&1
	rc=$?
	# The suite's header: "<Title> <version> (<bin>)...:"; its totals: "N agree, M differ".
	newest=$(sed -n 's/^.* \([0-9][0-9A-Za-z.+-]*\) (\/.*):$/\1/p' "$log" | tail -n1)
	totals=$(grep -E '^[0-9]+ agree, [0-9]+ differ$' "$log" | tail -n1)
	fields=$(grep -E '^payload fields' "$log" | tail -n1)
	result="agrees"
	if grep -q 'SKIPPED' "$log"; then
		result="skipped: $(grep -m1 SKIPPED "$log" | sed 's/.*SKIPPED: //')"
		status=1
	elif [ "$rc" -ne 0 ]; then
		result="**drift** (exit $rc)"
		status=1
	fi
	echo "| $a | $(pinned "$pkg") | ${newest:-?} | ${totals:-—} | ${fields:-—} | $result, $((SECONDS - start)) s |" >>"$rows"
	if [ "$rc" -ne 0 ]; then
		{
			echo
			echo "## $a ${newest:-?} (pinned $(pinned "$pkg"))"
			echo
			echo '```'
			# Every differing vector with its reasons, the payload-field differences, and
			# any failing Go test, as the suite printed them.
			awk '/^DIFFER /{p=1; print; next} p && /^          /{print; next} {p=0}
				/^payload fields differ/{q=1} q && (/^payload fields/ || /^  /){print; next} {q=0}
				/^--- FAIL/ || /^(FAIL|panic:)/{print}' "$log"
			echo '```'
		} >>"$details"
	fi
done
{
	echo "# Live suites against each agent's newest release"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ). Pins: tests/live/versions.json. Logs: $out/<agent>.log."
	echo
	echo "| agent | pinned | newest | vectors | payload fields | result |"
	echo "|---|---|---|---|---|---|"
	cat "$rows"
	cat "$details"
} >"$out/report.md.tmp" && mv "$out/report.md.tmp" "$out/report.md"
cat "$out/report.md"
exit $status
