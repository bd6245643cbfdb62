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
#   # ci: WHERE             run as written by another step of CI, which
#                           judges its output, not here: WHERE is .ci/run
#                           (a line of it is the command), Makefile (a line
#                           of the ci recipe is the command, make as
#                           $(MAKE), bin/gepcheck as $(BIN)), or a KEY that hack/cluster-test.sh
#                           runs with readme_run (hack/lib.sh); checked here
# Any other exit fails the line. The script counts what it ran, skipped
# and left to CI's other steps, and fails when it ran none.
#
# usage: hack/readme-test.sh BIN [README]
set -uo pipefail
. "$(dirname "$0")/lib.sh"
BIN=$(realpath "${1:?usage: hack/readme-test.sh BIN [README]}")
root=$(git rev-parse --show-toplevel) || exit 2
README=$(realpath "${2:-$root/README.md}")
name=${README#"$root/"}
have=" ${README_NEEDS:-} "; have=${have//,/ }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A copy of the tracked files: what the lines write (hierarchy.html, out/,
# reports/) stays out of the work tree; bin/gepcheck and the tools gepcheck
# builds (helm, kubectl, ...) on PATH for the lines that pipe through them
# (a tool not built is left off, and a line that needs it fails or is
# skipped by its marker).
readme_copy "$tmp" "$BIN" || exit 2
export PATH="$tmp/bin:$PATH"   # "gepcheck ..." lines too

ran=0 skipped=0 failed=0 inci=0 n=0
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
  want=0 needs="" ci=""
  if [[ $line =~ \#[[:space:]]*ci:[[:space:]]*([^[:space:]#]+) ]]; then ci=${BASH_REMATCH[1]}; fi
  if [ -n "$ci" ]; then
    cmd=$(readme_command "$line")
    case $ci in
      .ci/run) where=.ci/run; grep -qxF -- "$cmd" "$root/.ci/run" ;;
      Makefile) where="make ci"
        case $cmd in
          make\ *) recipe=$(printf '\t$(MAKE) %s' "${cmd#make }") ;;
          bin/gepcheck\ *) recipe=$(printf '\t$(BIN) %s' "${cmd#bin/gepcheck }") ;;
          *) recipe="" ;;
        esac
        [ -n "$recipe" ] && sed -n '/^ci:/,/^$/p' "$root/Makefile" | grep -qxF -- "$recipe" ;;
      *) where=hack/cluster-test.sh; [ "$(readme_line "$README" "$ci")" = "$line" ] && grep -qE -- "^[^#]*readme_run .* -- $ci( |$)" "$root/hack/cluster-test.sh" ;;
    esac
    if [ "$?" -eq 0 ]; then
      inci=$((inci+1))
      echo "ci    $name:$n (run by $where): ${trimmed:0:100}"
    else
      failed=$((failed+1))
      echo "FAIL  $name:$n: marked '# ci: $ci' but $where does not run it as written: $trimmed"
    fi
    continue
  fi
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
echo "readme: $ran command lines ran, $failed failed, $skipped skipped, $inci run by CI's other steps (README_NEEDS=\"${README_NEEDS:-}\")"
[ "$ran" -gt 0 ] || { echo "readme: no command line ran"; exit 1; }
[ "$failed" -eq 0 ]
