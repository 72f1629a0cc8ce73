#!/usr/bin/env bash
# Creates the user `idempotent` (password `idempotent`) and the database `idempotent_test` on the local
# PostgreSQL and MariaDB servers, for the idempotent-jdbi tests. Idempotent: safe to run again.
# Run as root. A server that is not running is started and awaited first.
set -euo pipefail

DB=idempotent_test
USER_NAME=idempotent
PASSWORD=idempotent
WAIT_SECONDS=${WAIT_SECONDS:-60}

log() { echo "[setup-databases] $*"; }

psql_admin() { psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
mariadb_admin() { mariadb -uroot "$@"; }

wait_for() { # name, command...
  local name=$1; shift
  for ((i = 0; i < WAIT_SECONDS; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  log "$name does not accept connections after ${WAIT_SECONDS}s"
  return 1
}

setup_postgres() {
  if ! psql_admin -c 'select 1' >/dev/null 2>&1; then
    log "PostgreSQL is not accepting connections; starting it"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
    wait_for PostgreSQL psql_admin -c 'select 1'
  fi
  psql_admin <<SQL
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$USER_NAME') THEN
    CREATE ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD';
  ELSE
    ALTER ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD';
  END IF;
END
\$\$;
SQL
  if [[ "$(psql_admin -c "select 1 from pg_database where datname = '$DB'")" != 1 ]]; then
    psql_admin -c "CREATE DATABASE $DB OWNER $USER_NAME"
  fi
  psql_admin -c "GRANT ALL PRIVILEGES ON DATABASE $DB TO $USER_NAME"
  psql_admin -d "$DB" -c "GRANT ALL ON SCHEMA public TO $USER_NAME"
  log "PostgreSQL: database $DB and user $USER_NAME ready"
}

setup_mariadb() {
  if ! mariadb_admin -e 'select 1' >/dev/null 2>&1; then
    log "MariaDB is not accepting connections; starting it"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
    wait_for MariaDB mariadb_admin -e 'select 1'
  fi
  mariadb_admin <<SQL
CREATE DATABASE IF NOT EXISTS $DB CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS '$USER_NAME'@'localhost' IDENTIFIED BY '$PASSWORD';
CREATE USER IF NOT EXISTS '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$PASSWORD';
CREATE USER IF NOT EXISTS '$USER_NAME'@'::1' IDENTIFIED BY '$PASSWORD';
ALTER USER '$USER_NAME'@'localhost' IDENTIFIED BY '$PASSWORD';
ALTER USER '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$PASSWORD';
ALTER USER '$USER_NAME'@'::1' IDENTIFIED BY '$PASSWORD';
GRANT ALL PRIVILEGES ON $DB.* TO '$USER_NAME'@'localhost';
GRANT ALL PRIVILEGES ON $DB.* TO '$USER_NAME'@'127.0.0.1';
GRANT ALL PRIVILEGES ON $DB.* TO '$USER_NAME'@'::1';
FLUSH PRIVILEGES;
SQL
  log "MariaDB: database $DB and user $USER_NAME ready"
}

status=0
setup_postgres || { log "PostgreSQL setup failed"; status=1; }
setup_mariadb || { log "MariaDB setup failed"; status=1; }
exit $status
