/**
 * A bundled OpenAI-compatible demo engine: chat and completion requests, JSON and SSE, with usage
 * and prefix-cached prompt tokens computed from what it has seen, for the demo, tests and the proxy
 * benchmark.
 */
package io.prefixlog.demo;
