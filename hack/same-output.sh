#!/usr/bin/env bash
# same-output.sh BIN OUT [--fuzz]: what a user sees of gepcheck, written to OUT
# so that two builds can be compared with diff -r (a restructure changes none
# of it; docs/architecture.md): check scenarios/, simulate -o json and -o table
# of every scenario under both path semantics, and with --fuzz the findings
# files of fuzz --impl envoy-gateway --checks 300 --seed 1.
set -u
bin=$(realpath "$1"); out=$2; fuzz=${3:-}
rm -rf "$out"; mkdir -p "$out/simulate"
cd "$(dirname "$0")/.."
"$bin" check scenarios/ > "$out/check.txt" 2>&1; echo "exit $?" >> "$out/check.txt"
n=0
while IFS= read -r f; do
	for sem in sticky-overrides gep-713; do
		for o in json table; do
			name=$(echo "$f" | tr / _).$sem.$o
			"$bin" simulate -f "$f" --semantics "$sem" -o "$o" > "$out/simulate/$name" 2>&1
			echo "exit $?" >> "$out/simulate/$name"
			n=$((n + 1))
		done
	done
done < <(git ls-files 'scenarios/*.yaml' | sort)
echo "same-output: $n simulate runs" >&2
[ "$n" -gt 0 ] || exit 1
if [ "$fuzz" = --fuzz ]; then
	"$bin" fuzz --impl envoy-gateway --checks 300 --seed 1 --out "$out/fuzz" > "$out/fuzz.txt" 2>&1
	echo "exit $?" >> "$out/fuzz.txt"
	# dates, timings (1m30.2s under load) and the output folder differ between runs
	sed -i -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?/DATE/g' -e 's/\(([0-9hm.]+[mun]?s)\)/(TIME)/g' \
		-e 's/in [0-9hm.]+[mun]?s \([0-9.]+ scenarios\/s\)/in TIME/g' -e "s#$out/#OUT/#g" "$out/fuzz.txt"
	find "$out/fuzz" -type f -exec sed -i -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?/DATE/g' {} +
fi
