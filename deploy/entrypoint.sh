#!/bin/sh
# Runs Bestiary for a club: waits for PostgreSQL, then serves on 0.0.0.0:$BESTIARY_PORT. The Dockerfile's entry
# point, and the same command without a container:
#   BESTIARY_DATABASE_URL=postgresql+psycopg://bestiary:secret@db/bestiary deploy/entrypoint.sh
# With BESTIARY_WORKERS above 1 it starts that many workers on the following ports and HAProxy in front of
# them on $BESTIARY_PORT (deploy/haproxy.cfg). Any argument is passed on to `bestiary serve`.
set -eu
: "${BESTIARY_DATABASE_URL:?set BESTIARY_DATABASE_URL, e.g. postgresql+psycopg://bestiary:secret@db/bestiary}"
PORT="${BESTIARY_PORT:-8000}"
WORKERS="${BESTIARY_WORKERS:-1}"
BESTIARY="${BESTIARY:-bestiary}"
PYTHON="${PYTHON:-python3}"
HERE="$(cd "$(dirname "$0")" && pwd)"

# PostgreSQL may still be starting (compose starts both at once): wait up to a minute
tries=0
until "$PYTHON" -c "import sys, psycopg; from sqlalchemy import make_url; \
psycopg.connect(make_url(sys.argv[1]).set(drivername='postgresql').render_as_string(hide_password=False), \
connect_timeout=3).close()" "$BESTIARY_DATABASE_URL" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 30 ]; then
        echo "PostgreSQL at ${BESTIARY_DATABASE_URL##*@} does not answer" >&2
        exit 1
    fi
    sleep 2
done

if [ "$WORKERS" -le 1 ]; then
    exec "$BESTIARY" serve --host 0.0.0.0 --port "$PORT" --database-url "$BESTIARY_DATABASE_URL" "$@"
fi
i=1
while [ "$i" -le 4 ]; do  # the proxy's four worker slots; those past BESTIARY_WORKERS stay down
    export "BESTIARY_WORKER_$i=127.0.0.1:$((PORT + i))"
    i=$((i + 1))
done
export BESTIARY_BIND="0.0.0.0:$PORT"
haproxy -W -db -f "$HERE/haproxy.cfg" &
exec "$BESTIARY" serve --workers "$WORKERS" --port "$PORT" --database-url "$BESTIARY_DATABASE_URL" \
    --forwarded-allow-ips 127.0.0.1 "$@"
