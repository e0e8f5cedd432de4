#!/bin/sh
# A chunk agent: reads its chunk ({"chunk_index", "phase", "items"}) on stdin, runs each test
# script it was given, and prints its result JSON on stdout. It knows nothing of other chunks.
read -r input
index=$(printf '%s' "$input" | sed 's/.*"chunk_index":\([0-9]*\).*/\1/')
passed=0; failed=0; failures=""
for test in $(printf '%s' "$input" | tr ',[]' '\n\n\n' | sed -n 's/^"\(examples\/fanout\/tests\/[A-Za-z0-9_.]*\)"$/\1/p'); do
  if sh "$test" >/dev/null 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failures="$failures${failures:+,}\"$test\""
  fi
done
printf '{"chunk_index":%s,"status":"completed","elapsed_ms":0,"test_results":{"passed":%s,"failed":%s,"skipped":0,"failures":[%s]}}\n' \
  "$index" "$passed" "$failed" "$failures"
