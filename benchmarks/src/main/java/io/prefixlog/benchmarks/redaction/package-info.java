/**
 * The publisher-thread cost of body redaction per event (the default credential-field rules, and
 * those with a pattern) next to the raw event without redaction, in the same run.
 */
package io.prefixlog.benchmarks.redaction;
