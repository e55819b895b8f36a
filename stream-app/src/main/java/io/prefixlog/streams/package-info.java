/** The prefixlog stream app: configuration, lifecycle and its entry point. */
package io.prefixlog.streams;
