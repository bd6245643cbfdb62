#!/bin/sh
# Returns a path and a ref holding terminal escape sequences (clear the
# screen, move the cursor) and a bidirectional override.
cat <<'JSON'
{"effective": [{"path": ["Service/default/\u001b[2J\u001b[Hb1"], "spec": {"color": "red\u001b[31m"}}],
 "policies": [{"ref": "ColorPolicy/default/p\u202e1", "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted\r\n"}]}]}
JSON
