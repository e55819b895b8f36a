/** Long coding-agent sessions, with and without session headers, through prefixlog. */
package io.prefixlog.benchmarks.agent;
