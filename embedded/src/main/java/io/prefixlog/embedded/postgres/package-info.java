/** A throwaway PostgreSQL server for tests: the docker-compose Iceberg catalog's database. */
package io.prefixlog.embedded.postgres;
