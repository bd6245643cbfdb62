# Functions the hack scripts share; sourced, not run. Each check here fails
# when what it compares is missing or empty, so that a step that wrote
# nothing cannot pass as "identical" (hack/hacktest plants those faults).

# ran LOG CODE... -- COMMAND...: runs COMMAND, its output (both streams) to
# LOG; returns 0 if it exits with one of the CODEs, else prints the command,
# its exit code (a signal's 128+n too) and the end of LOG, and returns 1.
ran() {
  local log=$1 ok=() code=0 c
  shift
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do ok+=("$1"); shift; done
  shift
  "$@" > "$log" 2>&1 || code=$?
  for c in "${ok[@]}"; do
    if [ "$code" -eq "$c" ]; then return 0; fi
  done
  echo "FAIL: $(printf '%q ' "$@")exited $code, want ${ok[*]}; its last lines:"
  tail -5 "$log" | sed 's/^/  /'
  return 1
}

# pinned_eg_version BIN: the Envoy Gateway version BIN pins (the default of
# its egctl --envoy-gateway-version); prints nothing and returns 1 when BIN
# fails or names none.
pinned_eg_version() {
  local help v
  help=$("$1" egctl --help 2>&1) || return 1
  v=$(sed -n 's/.*--envoy-gateway-version string.*(default "\(v[0-9.]*\)").*/\1/p' <<<"$help")
  [ -n "$v" ] || return 1
  echo "$v"
}

# undated FILE: FILE without its lines that carry a timestamp (a report's
# date) or the gepcheck that ran (buildinfo: "gepcheck VERSION, commit
# COMMIT, GOVERSION", a line of its own in every report); fails only when
# FILE cannot be read.
undated() { grep -vE '20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z|gepcheck [^ ,]+, commit [0-9a-z+]+, go[0-9]|"gepcheckCommit": "[0-9a-f]+"' "$1" || [ "$?" -eq 1 ]; }

# same_files FILTER A B NAME...: for each NAME, A/NAME and B/NAME exist,
# are not empty, keep something through FILTER (a command taking a file)
# and are equal through it. Prints one line per problem (a diff's first
# lines), sets same_count to the number of NAMEs that are equal, and
# returns 1 on any problem or when no NAME is given.
same_files() {
  local filter=$1 a=$2 b=$3 name f t bad=0
  shift 3
  same_count=0
  if [ "$#" -eq 0 ]; then echo "FAIL: no files to compare in $a and $b"; return 1; fi
  t=$(mktemp -d)
  for name in "$@"; do
    for f in "$a/$name" "$b/$name"; do
      if [ ! -f "$f" ]; then echo "FAIL: $f is missing"; bad=1; continue 2; fi
      if [ ! -s "$f" ]; then echo "FAIL: $f is empty"; bad=1; continue 2; fi
    done
    if ! "$filter" "$a/$name" > "$t/a" || ! "$filter" "$b/$name" > "$t/b"; then
      echo "FAIL: $filter could not read $a/$name or $b/$name"; bad=1; continue
    fi
    if [ ! -s "$t/a" ] || [ ! -s "$t/b" ]; then
      echo "FAIL: $a/$name or $b/$name has nothing but what $filter leaves out"; bad=1; continue
    fi
    if ! diff "$t/a" "$t/b" > "$t/diff"; then
      echo "FAIL: $a/$name and $b/$name differ:"; head -20 "$t/diff"; bad=1; continue
    fi
    same_count=$((same_count + 1))
  done
  rm -rf "$t"
  return "$bad"
}

# nonempty_yaml_key KEY: the YAML on stdin has KEY at the top level with a
# value that is not empty: not "KEY: []", "KEY: {}", "KEY: null" or "KEY:"
# with nothing indented or listed under it.
nonempty_yaml_key() {
  awk -v key="$1" '
    found == 1 { ok = ($0 ~ /^[ ]*- / || $0 ~ /^[ ]+[^ ]/); exit }
    index($0, key ":") == 1 {
      rest = substr($0, length(key) + 2); gsub(/^[ ]+|[ ]+$/, "", rest)
      if (rest == "") { found = 1; next }
      ok = (rest != "[]" && rest != "{}" && rest != "null" && rest != "~"); exit
    }
    END { exit !ok }'
}

# unsharded FILE: FILE without its date and the shards it names (a merged
# report names them, the unsharded one does not); fails only when FILE
# cannot be read.
unsharded() { grep -vE '20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z|shards|"[0-9]/4"' "$1" || [ "$?" -eq 1 ]; }

# sharded_same BIN DIR: a random campaign against Envoy Gateway sharded four
# ways and merged is the unsharded campaign: the same report but for the
# date and the shards it names (docs/reports.md, Shards). Works in DIR;
# every run must exit 0 (fuzz --impl exits 0 with findings), and both
# report files must exist, be non-empty and agree. Prints what fails and
# returns 1, or prints how many files agree.
sharded_same() {
  local bin=$1 d=$2 v i
  local fz=(fuzz --impl envoy-gateway --kind SecurityPolicy --checks 40 --seed 3)
  v=$(pinned_eg_version "$bin") || { echo "FAIL: $bin egctl --help names no pinned Envoy Gateway version"; return 1; }
  ran "$d/whole.log" 0 -- "$bin" "${fz[@]}" --out "$d/fz" --report-dir "$d/whole" || return 1
  for i in 1 2 3 4; do
    ran "$d/shard$i.log" 0 -- "$bin" "${fz[@]}" --shard "$i/4" --out "$d/fz$i" --report-dir "$d/shard$i" || return 1
  done
  ran "$d/merge.log" 0 -- "$bin" report merge --out "$d/merged" "$d"/shard{1,2,3,4}/envoy-gateway/"$v"/results-offline.json || return 1
  same_files unsharded "$d/whole/envoy-gateway/$v" "$d/merged/envoy-gateway/$v" "experimental-$v-offline-report.yaml" junit-offline.xml || return 1
  echo "sharded 4 ways and merged: $same_count files identical to the unsharded campaign's but for the date and the shards"
}

# kept_kinds LOG: the triage gepcheck prints at the end of a run (fuzz
# --impl, run --random: "triage of the kept finding of each kind") names
# at least one kind, and each has a kept finding in scenarios/findings/:
# a new kind is a failure. Sets kept_count to the number of kinds; prints
# one line per problem.
kept_kinds() {
  local log=$1 lines
  kept_count=0
  if [ ! -s "$log" ]; then echo "FAIL: $log is missing or empty"; return 1; fi
  lines=$(awk '/^triage of the kept finding of each kind/ { on = 1; next } on && /^  [^ ]/ { print; next } on { exit }' "$log")
  if [ -z "$lines" ]; then echo "FAIL: $log has no triage of kinds of difference: $(tail -2 "$log")"; return 1; fi
  kept_count=$(grep -c . <<<"$lines")
  if grep -q ' new: no kept finding' <<<"$lines"; then
    echo "FAIL: kinds of difference in $log without a kept finding:"
    grep ' new: no kept finding' <<<"$lines" | sed 's/^ */  /'
    return 1
  fi
}

# random_outcomes LOG IMPL N MAXERR: the summary of a run of N random cases
# against IMPL on the local control plane ("IMPL on local: P passed, F
# failed, E errors, S skipped (of N scenarios") is in LOG, adds up to N,
# skips none and has at most MAXERR errors. Prints one line per problem.
random_outcomes() {
  local log=$1 impl=$2 n=$3 maxerr=$4 line p f e s total
  line=$(grep -oE "$impl on local: [0-9]+ passed, [0-9]+ failed, [0-9]+ errors, [0-9]+ skipped \(of [0-9]+ scenarios" "$log" | tail -1)
  if [ -z "$line" ]; then echo "FAIL: no summary of $impl's run in $log: $(tail -2 "$log" 2>&1)"; return 1; fi
  read -r p f e s total < <(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) errors, ([0-9]+) skipped \(of ([0-9]+) .*/\1 \2 \3 \4 \5/' <<<"$line")
  if [ "$total" -ne "$n" ] || [ $((p + f + e + s)) -ne "$n" ]; then echo "FAIL: $line: want $n cases, each with an outcome"; return 1; fi
  if [ "$s" -ne 0 ]; then echo "FAIL: $line: $s random cases skipped"; return 1; fi
  if [ "$e" -gt "$maxerr" ]; then echo "FAIL: $line: $e errors, at most $maxerr allowed"; return 1; fi
}

# findings_reproduce BIN DIR FILE...: the run that wrote its report to DIR
# (--report-dir; one results-*.json under it) shows on each kept finding
# FILE exactly the differences it records (gepcheck findings verify, which
# counts what it compared and fails on none). Prints verify's summary;
# on failure its whole output.
findings_reproduce() {
  local bin=$1 dir=$2 results out
  shift 2
  results=$(find "$dir" -name 'results-*.json' 2> /dev/null)
  if [ -z "$results" ] || [ "$(wc -l <<<"$results")" -ne 1 ]; then
    echo "FAIL: want one results-*.json under $dir, found: ${results:-none}"; return 1
  fi
  local code=0
  out=$("$bin" findings verify --results "$results" "$@" 2>&1) || code=$?
  case $code in
    0) ;;
    1) echo "FAIL: kept findings do not reproduce:"; sed 's/^/  /' <<<"$out"; return 1 ;;
    *) echo "FAIL: gepcheck findings verify exited $code (not run, not judged, or bad input):"; sed 's/^/  /' <<<"$out"; return 1 ;;
  esac
  tail -1 <<<"$out"
}

# readme_command LINE: a README command line without its trailing comment
# (from the first " #"), as a user types it.
readme_command() { local c=${1%%" #"*}; c=${c%"${c##*[![:space:]]}"}; printf '%s\n' "${c#"${c%%[![:space:]]*}"}"; }

# readme_line README KEY: the one line of a ```sh block of README that
# carries the marker "# ci: KEY" (README.md, Contributing: README command
# lines); prints nothing and returns 1 when no line or several do.
readme_line() {
  local readme=$1 key=$2 in_sh=false line found="" n=0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      '```sh'*) in_sh=true; continue ;;
      '```'*) in_sh=false; continue ;;
    esac
    $in_sh || continue
    if [[ $line =~ \#[[:space:]]*ci:[[:space:]]*([^[:space:]#]+) ]] && [ "${BASH_REMATCH[1]}" = "$key" ]; then
      found=$line; n=$((n+1))
    fi
  done < "$readme"
  if [ "$n" -ne 1 ]; then echo "FAIL: $n lines of $readme carry '# ci: $key', want 1" >&2; return 1; fi
  printf '%s\n' "$found"
}

# readme_copy DIR BIN: the repository's tracked files copied into DIR, with
# DIR/bin/gepcheck a copy of BIN (a make line rebuilds it there) and the tools gepcheck builds (gepcheck
# tools: helm, kubectl, ...) linked beside it: where README lines run (what
# they write stays out of the work tree). Run them from DIR with DIR/bin
# first on PATH.
readme_copy() {
  local dir=$1 bin root tool path
  bin=$(realpath "$2") || return 1
  root=$(git rev-parse --show-toplevel) || return 1
  mkdir -p "$dir/bin" || return 1
  (cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -C "$dir" -xf - || return 1
  cp "$bin" "$dir/bin/gepcheck" || return 1   # a copy: make lines rebuild it
  "$bin" tools 2> /dev/null | while read -r tool _ path _; do
    [ -x "$path" ] && ln -sf "$path" "$dir/bin/$tool"
  done
  return 0
}

# readme_run DIR LOG CODE... -- KEY: runs the line of README.md (or of
# $README_FILE) marked "# ci: KEY" exactly as written, with bash from DIR
# (a readme_copy), its output to LOG; as ran, it returns 0 when the line
# exits with one of the CODEs. hack/readme-test.sh checks that every such
# key is run by hack/cluster-test.sh.
readme_run() {
  local dir=$1 log=$2 ok=() code=0 c line
  shift 2
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do ok+=("$1"); shift; done
  line=$(readme_line "${README_FILE:-$(git rev-parse --show-toplevel)/README.md}" "$2") || return 1
  echo "readme: $(readme_command "$line")"
  (cd "$dir" && PATH="$dir/bin:$PATH" bash -c "$line") > "$log" 2>&1 < /dev/null || code=$?
  for c in "${ok[@]}"; do
    if [ "$code" -eq "$c" ]; then return 0; fi
  done
  echo "FAIL: README line '# ci: $2' exited $code, want ${ok[*]}; its last lines:"
  tail -5 "$log" | sed 's/^/  /'
  return 1
}
