/** Checks of the docker-compose deployment that run without a Docker engine. */
package io.prefixlog.deploy;
