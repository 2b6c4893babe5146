#!/usr/bin/env bash
# The manual runbook's reads before an upgrade, as a script: what an operator looks at by hand
# with kubectl and curl to decide whether the upgrade may start. Compared with `ctl upgrade plan`.
# A real runbook adds `kubectl auth can-i --list`; the simulator cannot decode the protobuf body
# kubectl sends for it, so it is left out here (one kubectl call fewer: in the runbook's favour).
# Needs KUBECONFIG, CTL_API_URL, CTL_USERNAME, CTL_PASSWORD, CTL_CA_FILE (the simulator's env).
set -euo pipefail
NS=${NS:-redis}
api() { curl -sSf --cacert "$CTL_CA_FILE" -u "$CTL_USERNAME:$CTL_PASSWORD" "$CTL_API_URL$1" >/dev/null; }

kubectl get rec -n "$NS" -o json >/dev/null
kubectl get deployment redis-enterprise-operator -n "$NS" -o json >/dev/null
kubectl get configmap operator-environment-config -n "$NS" -o json >/dev/null
kubectl get validatingwebhookconfigurations -o json >/dev/null
kubectl get secret admission-tls -n "$NS" -o json >/dev/null
kubectl get statefulset rec -n "$NS" -o json >/dev/null
kubectl get pods -n "$NS" -o json >/dev/null
kubectl get redb --all-namespaces -o json >/dev/null
kubectl get reaadb --all-namespaces -o json >/dev/null
api /v1/nodes
api /v1/bdbs
api /v1/modules
