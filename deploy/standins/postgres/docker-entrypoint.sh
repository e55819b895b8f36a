#!/bin/bash
# As the postgres image's entrypoint: on an empty PGDATA, initdb with POSTGRES_USER as the
# superuser and POSTGRES_PASSWORD (required), create POSTGRES_DB, allow password (SCRAM) logins
# from the network; then run the server as user postgres in the foreground (PID 1, so compose's
# SIGTERM stops it cleanly).
set -euo pipefail
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 \
    --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != "postgres" ]; then
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -c "CREATE DATABASE \"$db\""
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop
  fi
fi
if [ "${1:-postgres}" = "postgres" ]; then
  shift || true
  exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" "$@"
fi
exec "$@"
