#!/usr/bin/env python3
"""A tiny implementation of GEP-713 Example 1 (a Direct ColorPolicy on
Services, merge strategy None) speaking gepcheck's exec protocol
(docs/exec-protocol.md). Standard library only.

gepcheck runs it once per case: the case's objects arrive as YAML on stdin
and as a JSON array in the file named by $GEPCHECK_CASE_JSON; the
observation goes to stdout as JSON. It writes the status conditions of
GEP-713 as merged upstream (Accepted, Programmed), the vocabulary an exec
implementation claims unless told otherwise (--status-vocabulary):

    gepcheck run --impl exec --exec-command docs/examples/colorpolicy-direct.py \\
        --profile color-direct -f scenarios/gep-713/example-1-direct.yaml
"""
import json
import os
import sys

GROUP = "policies.controller.io"


def ref(kind, ns, name):
    return f"{kind}/{ns}/{name}"


def main():
    with open(os.environ["GEPCHECK_CASE_JSON"]) as f:
        docs = json.load(f)
    services, policies = set(), []
    for d in docs:
        meta = d.get("metadata", {})
        ns = meta.get("namespace") or "default"
        if d.get("apiVersion") == "v1" and d.get("kind") == "Service":
            services.add((ns, meta["name"]))
        elif d.get("kind") == "ColorPolicy" and d.get("apiVersion", "").startswith(GROUP + "/"):
            policies.append((ns, meta["name"], meta.get("creationTimestamp"), d.get("spec", {})))

    # GEP-713, Merge strategy None: the oldest policy wins (no timestamp:
    # newest), then the first by {namespace}/{name}. RFC 3339 UTC times sort
    # as strings.
    def order(p):
        ns, name, ts, _ = p
        return (ts is None, ts or "", f"{ns}/{name}")

    # A deliberately broken mode, to watch gepcheck catch it:
    # GEPCHECK_EXAMPLE_BROKEN=newest-wins lets the newest policy win.
    reverse = os.environ.get("GEPCHECK_EXAMPLE_BROKEN") == "newest-wins"

    won, lost, problems, claims = {}, {}, {}, {}
    for p in sorted(policies, key=order, reverse=reverse):
        ns, name, _, spec = p
        seen = set()
        for t in spec.get("targetRefs", []):
            key = ref("ColorPolicy", ns, name)
            tns = t.get("namespace") or ns
            if t.get("kind") != "Service" or t.get("group", "") != "" or t.get("sectionName"):
                problems.setdefault(key, []).append("Invalid")
                continue
            if tns != ns:
                problems.setdefault(key, []).append("Invalid")  # no cross-namespace targets
                continue
            target = (tns, t["name"])
            if target not in services:
                problems.setdefault(key, []).append("TargetNotFound")
                continue
            if target in seen:
                continue
            seen.add(target)
            if target in claims:
                lost.setdefault(key, []).append(target)
            else:
                claims[target] = (key, {k: v for k, v in spec.items() if k != "targetRefs"})
                won.setdefault(key, []).append(target)

    obs = {"name": os.environ.get("GEPCHECK_CASE_NAME", ""), "effective": [], "policies": []}
    for (ns, name), (_, spec) in sorted(claims.items()):
        obs["effective"].append({"path": [ref("Service", ns, name)], "spec": spec})
    for ns, name, _, _ in policies:
        key = ref("ColorPolicy", ns, name)
        if key in won:
            conds = [{"type": "Accepted", "status": "True", "reason": "Accepted"},
                     {"type": "Programmed", "status": "True", "reason": "Programmed"}]
        elif key in lost:
            conds = [{"type": "Accepted", "status": "False", "reason": "Conflicted"}]
        else:
            reasons = problems.get(key, ["TargetNotFound"])
            reason = "Invalid" if "Invalid" in reasons else "TargetNotFound"
            conds = [{"type": "Accepted", "status": "False", "reason": reason}]
        obs["policies"].append({"ref": key, "conditions": conds})
    json.dump(obs, sys.stdout)


if __name__ == "__main__":
    main()
