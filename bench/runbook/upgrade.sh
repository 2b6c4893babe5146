#!/usr/bin/env bash
# The manual runbook as a script: apply the operator bundle, wait for the operator, set the
# cluster's version, poll until it runs again, then set each database's version and poll until
# it runs it. Polling sleeps POLL seconds (5, as a person or a CI job would), as runbooks do.
# Prints "<epoch ms> <event>" when it sees cluster-running and database-active <ns>/<name>.
# Needs KUBECONFIG and BUNDLE_URL; NS, REC, NODES, VERSION_TAG, DB_VERSION, POLL, MAX_WAIT are
# optional. IMAGE_SPEC and DB_FIELD are the field names the cluster's CRDs use: the real product's
# by default (redisEnterpriseImageSpec in the REC, redisVersion in the REDB: redis/docs
# content/operate/kubernetes/upgrade/upgrade-redis-cluster.md); the bench passes the scenario's.
set -euo pipefail
NS=${NS:-redis}
REC=${REC:-rec}
VERSION_TAG=${VERSION_TAG:-7.8.2-60}
DB_VERSION=${DB_VERSION:-7.4}
POLL=${POLL:-5}
NODES=${NODES:-3}
IMAGE_SPEC=${IMAGE_SPEC:-redisEnterpriseImageSpec}
DB_FIELD=${DB_FIELD:-redisVersion}
MAX_WAIT=${MAX_WAIT:-300}
stamp() { echo "$(date +%s%3N) $*"; }
# A wait that never ends is a wrong field or a stuck cluster: say which, instead of polling on.
deadline=$(($(date +%s) + MAX_WAIT))
waited() {
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "upgrade.sh: still waiting for $* after ${MAX_WAIT} s" >&2
    exit 1
  fi
  sleep "$POLL"
}

kubectl apply -n "$NS" -f "$BUNDLE_URL" >/dev/null
kubectl rollout status deployment/redis-enterprise-operator -n "$NS" --timeout=600s >/dev/null

kubectl patch rec "$REC" -n "$NS" --type merge \
  -p "{\"spec\":{\"$IMAGE_SPEC\":{\"versionTag\":\"$VERSION_TAG\"}}}" >/dev/null
# Runbooks wait before the first look: the state reads Running until the operator starts.
sleep "$POLL"
until [ "$(kubectl get rec "$REC" -n "$NS" -o jsonpath='{.status.state}')" = Running ] &&
  [ "$(kubectl get pods -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name} {.spec.containers[0].image}{"\n"}{end}' |
    grep -c "^$REC-[0-9]* .*:$VERSION_TAG\$")" = "$NODES" ]; do
  waited "$REC to run $VERSION_TAG on $NODES pods"
done
stamp cluster-running

for db in $(kubectl get redb -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name}{" "}{end}'); do
  kubectl patch redb "$db" -n "$NS" --type merge -p "{\"spec\":{\"$DB_FIELD\":\"$DB_VERSION\"}}" >/dev/null
  until [ "$(kubectl get redb "$db" -n "$NS" -o jsonpath='{.status.status} {.status.version}')" = "active $DB_VERSION" ]; do
    waited "$NS/$db to be active on $DB_VERSION"
  done
  stamp "database-active $NS/$db"
done
