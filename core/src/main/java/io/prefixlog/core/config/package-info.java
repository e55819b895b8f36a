/**
 * Settings from environment variables and an optional properties file, validated with errors that
 * name the key.
 */
package io.prefixlog.core.config;
