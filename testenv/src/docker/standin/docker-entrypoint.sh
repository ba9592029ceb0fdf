#!/bin/bash
# The stand-in's entry point, doing what the official image's does for the contract it keeps: run any other command
# as given, ELASTIC_PASSWORD (or ELASTIC_PASSWORD_FILE) as the keystore's bootstrap.password, and the node as uid 1000.
set -e
umask 0002

as_node_user() {
  if [[ "$(id -u)" == "0" ]]; then
    exec setpriv --reuid=1000 --regid=0 --init-groups "$@"
  else
    exec "$@"
  fi
}

# Security on by default, as the official image has it on first start: a CA, an HTTP and a transport certificate, and
# config/certs/http_ca.crt for clients. The official image has Elasticsearch's own auto-configuration do this; in the
# integ-test zip that tool writes a keystore entry (cluster.state.encryption.password.autoconfigured) for a module the
# zip lacks, and the node then refuses to boot, so the stand-in does it with the zip's elasticsearch-certutil. Skipped
# where the official image's auto-configuration skips itself: security settings given, data already there, or a
# multi-node discovery configured.
auto_configure_security() {
  local home=/usr/share/elasticsearch config=/usr/share/elasticsearch/config
  if env | grep -q -E '^(xpack\.security\.|ES_SETTING_XPACK_SECURITY_)' \
      || grep -q -E '^[[:space:]]*xpack\.security' "$config/elasticsearch.yml" \
      || [[ -n "$(ls -A "$home/data" 2>/dev/null)" ]]; then
    return
  fi
  if env | grep -q -E '^(discovery\.seed_hosts|cluster\.initial_master_nodes|ES_SETTING_DISCOVERY_SEED_HOSTS|ES_SETTING_CLUSTER_INITIAL__MASTER__NODES)=' \
      && ! env | grep -q -E '^(discovery\.type|ES_SETTING_DISCOVERY_TYPE)=single-node$'; then
    return
  fi
  local work
  work=$(mktemp -d)
  (
    cd "$work"
    certutil() { ES_JAVA_OPTS="-Xms64m -Xmx256m" "$home/bin/elasticsearch-certutil" "$@" > /dev/null; }
    certutil ca --silent --pem --days 3650 --out "$work/ca.zip" && unzip -q ca.zip
    local names="--dns localhost --dns $(hostname) --ip 127.0.0.1 --ip ::1"
    for ip in $(hostname -I 2>/dev/null); do names="$names --ip $ip"; done
    # shellcheck disable=SC2086 # a list of options
    certutil cert --silent --pem --days 3650 --ca-cert "$work/ca/ca.crt" --ca-key "$work/ca/ca.key" --name http $names \
      --out "$work/http.zip"
    unzip -q http.zip
    mkdir -p "$config/certs"
    cp ca/ca.crt "$config/certs/http_ca.crt"
    cp http/http.crt http/http.key "$config/certs/"
  )
  rm -rf "$work"
  chmod -R g=u "$config/certs"
  cat >> "$config/elasticsearch.yml" <<'YML'

# Security, configured at first start (the stand-in's auto-configuration; see docker-entrypoint.sh).
xpack.security.enabled: true
xpack.security.http.ssl:
  enabled: true
  certificate: certs/http.crt
  key: certs/http.key
  certificate_authorities: [ "certs/http_ca.crt" ]
xpack.security.transport.ssl:
  enabled: true
  verification_mode: certificate
  certificate: certs/http.crt
  key: certs/http.key
  certificate_authorities: [ "certs/http_ca.crt" ]
YML
}

if [[ "$1" != "eswrapper" ]]; then
  if [[ "$(id -u)" == "0" && $(basename "$1") == "elasticsearch" ]]; then
    set -- /usr/share/elasticsearch/bin/elasticsearch "${@:2}"
    as_node_user "$@"
  fi
  exec "$@"
fi

# *_FILE variables: the value is the content of the named file (secrets).
source /usr/share/elasticsearch/bin/elasticsearch-env-from-file

if [[ -n "$ELASTIC_PASSWORD" ]]; then
  keystore=/usr/share/elasticsearch/config/elasticsearch.keystore
  [[ -f "$keystore" ]] || (as_node_user elasticsearch-keystore create)
  if ! (as_node_user elasticsearch-keystore list | grep -q '^bootstrap.password$'); then
    (printf '%s' "$ELASTIC_PASSWORD" | as_node_user elasticsearch-keystore add -x 'bootstrap.password')
  fi
fi

auto_configure_security
if [[ "$(id -u)" == "0" && -n "$TAKE_FILE_OWNERSHIP" ]]; then
  chown -R 1000:0 /usr/share/elasticsearch/{data,logs}
fi

as_node_user /usr/share/elasticsearch/bin/elasticsearch
