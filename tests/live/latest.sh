#!/usr/bin/env bash
# make test-latest: every live suite against its agent's newest release on npm (the "latest"
# tag) instead of its pin in tests/live/versions.json, and a drift report in
# build/live-latest/report.md: per agent the pinned and newest versions, how many vectors
# still agree, the payload fields the new release sends differently, the hook events it
# added or removed, and every vector that differs with its reasons. The full logs are beside
# it (<agent>.log). An agent whose newest release is its pin is not rerun (its suite passes
# on the pin in CI; LATEST_FORCE=1 reruns it anyway); a pinned package with no live suite
# gets a row with both versions. It exits 1 when any agent drifted or its suite could not
# run, so a scheduled job can flag a release; the pins move only by editing versions.json.
# Each agent's row stays in the output directory until that agent runs again, so runs of one
# agent at a time (LATEST_AGENTS=claude, then LATEST_AGENTS=codex) add up to one report.
#
#   LATEST_AGENTS="claude codex"  the suites to run (default: every live suite)
#   LATEST_FORCE=1                rerun a suite whose newest release is its pin
#   LATEST_OUT=DIR                where the report and logs go (default: build/live-latest)
#   GO, NPM                       the go and npm to use (default: go, npm)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
go=${GO:-go}
npm=${NPM:-npm}
out=${LATEST_OUT:-build/live-latest}
mkdir -p "$out"
out=$(cd "$out" && pwd)
suites=
for f in tests/live/*/live_test.go; do
	grep -q 'suite.Agent{' "$f" && suites="$suites $(basename "$(dirname "$f")")"
done
agents=${LATEST_AGENTS:-$suites}

# versions.json, read once: "package version" lines.
pins=$(python3 -c 'import json,sys
for k, v in sorted(json.load(open(sys.argv[1])).items()): print(k, v)' tests/live/versions.json) || exit 1
pinned() { # the pinned version of an npm package, or ?
	printf '%s\n' "$pins" | awk -v p="$1" '$1 == p { v = $2 } END { print (v == "" ? "?" : v) }'
}
newest() { # the version npm's "latest" tag names, or nothing (npm's words on stderr)
	"$npm" view --json "$1@latest" version 2>>"$2" | sed -n 's/^"\([0-9A-Za-z.+-]*\)"$/\1/p' | head -n1
}
field() { # a suite's Agent field: field Package claude
	sed -n 's/.*'"$1"': *"\([^"]*\)".*/\1/p' "tests/live/$2/live_test.go" | head -n1
}
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
oneline() { awk 'NR > 1 { printf "; " } { printf "%s", $0 } END { print "" }' | sed 's/|/\\|/g'; }

status=0
started=$(date -u +%s) load0=$(load)
row() { # an agent's row of the report, kept in $out until that agent runs again
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@" >"$out/$1.row"
}
for a in $agents; do
	rm -f "$out/$a.details"
	if [ ! -f "tests/live/$a/live_test.go" ]; then
		echo "test-latest: no live suite tests/live/$a" >&2
		status=1
		continue
	fi
	pkg=$(field Package "$a")
	gate=$(field Gate "$a")
	pin=$(pinned "$pkg")
	log=$out/$a.log
	: >"$log"
	when=$(date -u +%H:%MZ)
	latest=$(newest "$pkg" "$log")
	if [ -z "$latest" ]; then
		row "$a" "$pin" "?" — — — "npm view $pkg failed: $(tail -n1 "$log" | oneline); $when"
		status=1
		continue
	fi
	if [ "$latest" = "$pin" ] && [ -z "${LATEST_FORCE:-}" ]; then
		row "$a" "$pin" "$latest" — — — "latest = pinned, no new release: not rerun (LATEST_FORCE=1 reruns it); $when"
		continue
	fi
	echo "test-latest: $a ($pkg $latest, pinned $pin) ..." >&2
	start=$SECONDS l0=$(load)
	if ! "$go" test -c -o "$out/live-$a.test" "./tests/live/$a" >>"$log" 2>&1; then
		row "$a" "$pin" "$latest" — — — "the suite did not build ($a.log); $when"
		status=1
		continue
	fi
	(cd "tests/live/$a" && env "$gate=1" HOOKEXEC_LIVE_LATEST=1 "$out/live-$a.test" -test.count=1) >>"$log" 2>&1
	rc=$?
	# The suite's header: "<Title> <version> (<bin>)...:"; its totals: "N agree, M differ".
	ran=$(sed -n 's/^.* \([0-9][0-9A-Za-z.+-]*\) (\/.*):$/\1/p' "$log" | tail -n1)
	totals=$(grep -E '^[0-9]+ agree, [0-9]+ differ$' "$log" | tail -n1)
	fields=$(grep -E '^payload fields' "$log" | sed 's/^payload fields:* *//' | oneline)
	events=$(grep -E '^events' "$log" | oneline)
	result="agrees"
	if grep -q 'SKIPPED' "$log"; then
		result="skipped: $(grep -m1 SKIPPED "$log" | sed 's/.*SKIPPED: //' | oneline)"
		status=1
	elif [ "$rc" -ne 0 ]; then
		result="**drift** (exit $rc)"
		status=1
	fi
	row "$a" "$pin" "${ran:-$latest}" "${totals:-—}" "${fields:-—}" "${events:-—}" \
		"$result; $when, $((SECONDS - start)) s, load $l0 → $(load)"
	if [ "$rc" -ne 0 ]; then
		{
			echo
			echo "## $a ${ran:-$latest} (pinned $pin)"
			echo
			echo '```'
			# Every differing vector with its reasons, the payload-field and event
			# differences, and any failing Go test, as the suite printed them.
			awk '/^DIFFER /{p=1; print; next} p && /^          /{print; next} {p=0}
				/^payload fields differ/{q=1; print; next} q && /^  /{print; next} {q=0}
				/^payload fields: no vector fired/ || /^events/{print}
				/^ *--- FAIL/ || /^(FAIL|panic:)/ || /^tests\/live\//{print}' "$log"
			echo '```'
		} >"$out/$a.details"
	fi
done
# The pinned npm packages no live suite runs (an agent whose suite is still being written):
# their newest release, so the report still says what shipped.
covered=$(for a in $suites; do field Package "$a"; done)
others=$(printf '%s\n' "$pins" | awk '$1 !~ /^pypi:/ { print $1 }')
uncovered=
for pkg in $others; do
	printf '%s\n' "$covered" | grep -qxF "$pkg" || uncovered="$uncovered $pkg"
done
{
	echo "# Live suites against each agent's newest release"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ); this run $(($(date -u +%s) - started)) s, load average $load0 at its start, $(load) at its end ($(nproc 2>/dev/null || echo '?') cores). Each row says when its agent last ran. Pins: tests/live/versions.json. Logs: $out/<agent>.log."
	echo
	echo "| agent | pinned | newest | vectors | payload fields | events | result |"
	echo "|---|---|---|---|---|---|---|"
	for a in $suites; do
		if [ -f "$out/$a.row" ]; then
			cat "$out/$a.row"
		else
			echo "| $a | $(pinned "$(field Package "$a")") | — | — | — | — | not run yet (LATEST_AGENTS) |"
		fi
	done
	for pkg in $uncovered; do
		echo "| ($pkg) | $(pinned "$pkg") | $(newest "$pkg" /dev/null) | — | — | — | no live suite runs this package |"
	done
	for a in $suites; do
		if [ -f "$out/$a.details" ]; then cat "$out/$a.details"; fi
	done
} >"$out/report.md.tmp" && mv "$out/report.md.tmp" "$out/report.md"
cat "$out/report.md"
exit $status
