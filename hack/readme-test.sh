#!/usr/bin/env bash
# Runs every command line of README.md exactly as written (issue 31: a
# line copied from the README must work), from a copy of the repository
# root (git ls-files), with bin/gepcheck the binary given. A command line
# is a line of a ```sh block that is not a comment. Markers at the end of
# a line (README.md, Contributing: README command lines):
#   # needs: WHAT[, WHAT]   needs a cluster, egctl, a build, a long run: listed
#                           and skipped unless every WHAT is in
#                           README_NEEDS (e.g. README_NEEDS="egctl")
#   # exit: N               expected to exit N (a check that finds
#                           differences, bad input shown on purpose)
# Any other exit fails the line. The script counts what it ran and
# skipped, and fails when it ran none.
#
# usage: hack/readme-test.sh BIN [README]
set -uo pipefail
BIN=$(realpath "${1:?usage: hack/readme-test.sh BIN [README]}")
root=$(git rev-parse --show-toplevel) || exit 2
README=$(realpath "${2:-$root/README.md}")
name=${README#"$root/"}
have=" ${README_NEEDS:-} "; have=${have//,/ }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A copy of the tracked files: what the lines write (hierarchy.html, out/,
# reports/) stays out of the work tree.
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -C "$tmp" -xf - || exit 2
mkdir -p "$tmp/bin" && ln -s "$BIN" "$tmp/bin/gepcheck"
export PATH="$tmp/bin:$PATH"   # "gepcheck ..." lines too
# The tools gepcheck builds (gepcheck tools: helm, kubectl, ...), for the
# lines that pipe through them; a tool not built is left off, and a line
# that needs it fails or is skipped by its marker.
"$BIN" tools 2> /dev/null | while read -r tool _ path _; do
  [ -x "$path" ] && ln -sf "$path" "$tmp/bin/$tool"
done

ran=0 skipped=0 failed=0 n=0
in_sh=false
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n+1))
  case "$line" in
    '```sh'*) in_sh=true; continue ;;
    '```'*) in_sh=false; continue ;;
  esac
  $in_sh || continue
  trimmed=${line#"${line%%[![:space:]]*}"}
  [ -z "$trimmed" ] || [ "${trimmed:0:1}" = "#" ] && continue
  want=0 needs=""
  if [[ $line =~ \#[[:space:]]*exit:[[:space:]]*([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
  if [[ $line =~ \#[[:space:]]*needs:[[:space:]]*([a-z0-9,[:space:]-]+)$ ]]; then needs=${BASH_REMATCH[1]}; fi
  missing=""
  for w in ${needs//,/ }; do
    case "$have" in *" $w "*) ;; *) missing="$missing $w" ;; esac
  done
  if [ -n "$missing" ]; then
    skipped=$((skipped+1))
    echo "skip  $name:$n (needs:$missing): ${trimmed:0:100}"
    continue
  fi
  start=$SECONDS
  ( cd "$tmp" && bash -c "$line" ) > "$tmp/.out" 2>&1 < /dev/null; code=$?
  took="$((SECONDS-start))s"
  ran=$((ran+1))
  if [ "$code" -ne "$want" ]; then
    failed=$((failed+1))
    echo "FAIL  $name:$n ($took): exit $code, want $want: $trimmed"
    tail -5 "$tmp/.out" | sed 's/^/      /'
  elif grep -qE 'panic:|goroutine [0-9]+ \[' "$tmp/.out"; then
    failed=$((failed+1))
    echo "FAIL  $name:$n: a panic: $trimmed"
  else
    echo "ok    $name:$n ($took): ${trimmed:0:100}"
  fi
done < "$README"
echo "readme: $ran command lines ran, $failed failed, $skipped skipped (README_NEEDS=\"${README_NEEDS:-}\")"
[ "$ran" -gt 0 ] || { echo "readme: no command line ran"; exit 1; }
[ "$failed" -eq 0 ]
