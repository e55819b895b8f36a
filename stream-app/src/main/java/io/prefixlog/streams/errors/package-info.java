/** Dead letters: a rejected input kept whole, with its origin and reason, and counted. */
package io.prefixlog.streams.errors;
