#!/usr/bin/env bash
# What the server tests need on a CI machine (Debian): Chromium and axe-core for the browser tests, a PostgreSQL
# server on loopback with an empty database, and HAProxy for the test of two workers behind a proxy
# (tests/server/test_cluster.py runs it in the foreground itself; no service is started). Progress goes to stderr; stdout is one line to evaluate:
#   eval "$(.ci/server-services.sh)"    # sets BESTIARY_TEST_POSTGRES_URL for pytest
set -euo pipefail
exec 3>&1 1>&2

DB_NAME=bestiary_test
DB_USER=bestiary
DB_PASSWORD=bestiary

packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
command -v npm >/dev/null || packages+=(npm)
command -v pg_ctlcluster >/dev/null || packages+=(postgresql)
command -v haproxy >/dev/null || packages+=(haproxy)
if [ ${#packages[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}"
fi

# axe-core, the accessibility checker the browser tests inject into each page (tests/server/conftest.py)
AXE_VERSION=4.14.1
npm install --silent --no-save --no-audit --no-fund --prefix "$(dirname "$0")/axe" "axe-core@$AXE_VERSION"

version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q "^$version main"; then
    pg_createcluster "$version" main
fi
# Loopback only: the test database is reachable from this machine alone.
echo "listen_addresses = '127.0.0.1'" > "/etc/postgresql/$version/main/conf.d/bestiary-loopback.conf"
# the server must not inherit fd 3, or the caller's $(...) would wait for it to exit
pg_ctlcluster "$version" main start 3>&- || pg_ctlcluster "$version" main status 3>&-
for _ in $(seq 30); do
    pg_isready -h 127.0.0.1 -q && break
    sleep 1
done

as_postgres() { su postgres -c "$1"; }
as_postgres "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname='$DB_USER'\"" | grep -q 1 \
    || as_postgres "psql -qc \"CREATE ROLE $DB_USER LOGIN PASSWORD '$DB_PASSWORD'\""
as_postgres "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='$DB_NAME'\"" | grep -q 1 \
    || as_postgres "createdb -O $DB_USER $DB_NAME"

echo "export BESTIARY_TEST_POSTGRES_URL=postgresql+psycopg://$DB_USER:$DB_PASSWORD@127.0.0.1:5432/$DB_NAME" >&3
